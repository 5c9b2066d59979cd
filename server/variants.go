package server

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// variantStore holds the precompressed variants of files, content-addressed
// by the sha-256 of the identity bytes and the coding, so a variant is
// built once per content whatever its path or modification time. Without a
// state directory the variants live in memory within a byte budget (least
// recently used dropped first; a variant larger than the budget is not
// kept); with one they are files in DIR/variants, written atomically,
// within a disk budget (maxVariantDisk: the least recently used files are
// removed first, so a file that keeps changing, or uploads, cannot fill the
// disk). A variant is only kept under its key when the bytes compressed
// really had that sha-256: a file changing during the build would
// otherwise poison its content address.
type variantStore struct {
	dir        string
	budget     int64
	diskBudget int64

	mu       sync.Mutex
	used     int64
	diskUsed int64
	lru      *list.List // of *memVariant, most recent first
	mem      map[string]*list.Element
	pending  map[string]*build
}

type memVariant struct {
	key  string
	data []byte
}

// maxVariantDisk bounds the bytes of the variants kept in a state directory.
const maxVariantDisk = 1 << 30

// errChangedDuringBuild marks a variant whose identity bytes no longer had
// the sha-256 it was asked for.
var errChangedDuringBuild = errors.New("file changed while its variant was built")

// build is an in-flight compression other requests wait for.
type build struct {
	done chan struct{}
	data []byte
	err  error
}

func newVariantStore(dir string, budget int64) (*variantStore, error) {
	vs := &variantStore{budget: budget, diskBudget: maxVariantDisk, lru: list.New(), mem: map[string]*list.Element{}, pending: map[string]*build{}}
	if dir != "" {
		vs.dir = filepath.Join(dir, "variants")
		if err := os.MkdirAll(vs.dir, 0o755); err != nil {
			return nil, err
		}
		vs.diskUsed = vs.scanDisk(0)
	}
	return vs, nil
}

// compressChecked compresses src into dst and checks that the bytes read
// had the sha-256 sum.
func compressChecked(dst io.Writer, src io.Reader, enc string, sum []byte) error {
	h := sha256.New()
	if err := compress(dst, io.TeeReader(src, h), enc); err != nil {
		return err
	}
	if !bytes.Equal(h.Sum(nil), sum) {
		return errChangedDuringBuild
	}
	return nil
}

// open returns the enc variant of the identity content whose sha-256 is
// sum, building it from src on first use. The closer releases a file.
func (vs *variantStore) open(sum []byte, enc string, src io.Reader) (Content, int64, func(), error) {
	key := hex.EncodeToString(sum) + "." + enc
	if vs.dir != "" {
		return vs.openDisk(key, enc, src, sum)
	}
	data, err := vs.memory(key, enc, src, sum)
	if err != nil {
		return nil, 0, nil, err
	}
	return bytes.NewReader(data), int64(len(data)), func() {}, nil
}

func (vs *variantStore) memory(key, enc string, src io.Reader, sum []byte) ([]byte, error) {
	vs.mu.Lock()
	if el, ok := vs.mem[key]; ok {
		vs.lru.MoveToFront(el)
		vs.mu.Unlock()
		return el.Value.(*memVariant).data, nil
	}
	if b, ok := vs.pending[key]; ok {
		vs.mu.Unlock()
		<-b.done
		return b.data, b.err
	}
	b := &build{done: make(chan struct{})}
	vs.pending[key] = b
	vs.mu.Unlock()

	var buf bytes.Buffer
	b.err = compressChecked(&buf, src, enc, sum)
	b.data = buf.Bytes()

	vs.mu.Lock()
	delete(vs.pending, key)
	if b.err == nil {
		vs.keep(key, b.data)
	}
	vs.mu.Unlock()
	close(b.done)
	return b.data, b.err
}

// keep adds a variant to the memory budget; vs.mu is held.
func (vs *variantStore) keep(key string, data []byte) {
	if int64(len(data)) > vs.budget {
		return
	}
	vs.mem[key] = vs.lru.PushFront(&memVariant{key: key, data: data})
	vs.used += int64(len(data))
	for vs.used > vs.budget {
		last := vs.lru.Back()
		mv := last.Value.(*memVariant)
		vs.lru.Remove(last)
		delete(vs.mem, mv.key)
		vs.used -= int64(len(mv.data))
	}
}

func (vs *variantStore) openDisk(key, enc string, src io.Reader, sum []byte) (Content, int64, func(), error) {
	p := filepath.Join(vs.dir, key)
	if f, size, err := openSized(p); err == nil {
		vs.touch(f, p)
		return f, size, func() { f.Close() }, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil, err
	}
	if err := vs.writeDisk(p, enc, src, sum); err != nil {
		return nil, 0, nil, err
	}
	f, size, err := openSized(p)
	if err != nil {
		return nil, 0, nil, err
	}
	vs.mu.Lock()
	vs.diskUsed += size
	over := vs.diskUsed > vs.diskBudget
	vs.mu.Unlock()
	if over {
		vs.pruneDisk(p)
	}
	return f, size, func() { f.Close() }, nil
}

// touch marks a variant file as used (its modification time orders the
// pruning), at most once a minute.
func (vs *variantStore) touch(f *os.File, p string) {
	if fi, err := f.Stat(); err == nil && time.Since(fi.ModTime()) > time.Minute {
		now := time.Now()
		os.Chtimes(p, now, now)
	}
}

// pruneDisk removes the least recently used variants, keep excepted, until
// they fit in 90% of the disk budget. An open variant stays readable by the
// requests that have it open (on Unix).
func (vs *variantStore) pruneDisk(keep string) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.diskUsed <= vs.diskBudget {
		return // another request pruned already
	}
	vs.diskUsed = vs.scanDisk(vs.diskBudget-vs.diskBudget/10, keep)
}

// scanDisk sums the sizes of the variant files, removing leftovers of
// interrupted builds and, while the total is over target (when target > 0),
// the oldest variants other than keep. It returns the bytes left.
func (vs *variantStore) scanDisk(target int64, keep ...string) int64 {
	entries, err := os.ReadDir(vs.dir)
	if err != nil {
		return 0
	}
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		p := filepath.Join(vs.dir, e.Name())
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if strings.HasPrefix(e.Name(), ".build-") {
			if time.Since(fi.ModTime()) > time.Hour {
				os.Remove(p) // left by a crash
			}
			continue
		}
		files = append(files, file{p, fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	if target <= 0 || total <= target {
		return total
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for _, f := range files {
		if total <= target {
			break
		}
		if slices.Contains(keep, f.path) {
			continue
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
	return total
}

// writeDisk compresses into a temporary file and renames it into place, so
// concurrent builders race harmlessly (the bytes are identical).
func (vs *variantStore) writeDisk(p, enc string, src io.Reader, sum []byte) error {
	tmp, err := os.CreateTemp(vs.dir, ".build-*")
	if errors.Is(err, fs.ErrNotExist) {
		// Removed while the server runs: make it again.
		if err := os.MkdirAll(vs.dir, 0o755); err != nil {
			return err
		}
		tmp, err = os.CreateTemp(vs.dir, ".build-*")
	}
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := compressChecked(tmp, src, enc, sum); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

func openSized(p string) (*os.File, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
