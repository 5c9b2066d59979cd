package server

import (
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

	"github.com/hdig/hdig/internal/ownfile"
)

// diskStore is a directory of the state directory holding files made by
// the server (encoded variants, zsync control files), content-addressed:
// each is named KEY.SUMHEX, KEY being IDHEX.REST (IDHEX the sha-256 its
// source had, REST what else the bytes depend on) and SUMHEX the sha-256
// of the file's own bytes, which a reader checks, so a file changed
// behind the server's back is not served. Files are written atomically
// (a temporary file renamed into place, so concurrent writers race
// harmlessly) and kept within a byte budget, the least recently used
// (modification time, touched on use) removed first. The directory is
// scanned when opened: leftovers of interrupted writes and names of
// another format are removed.
type diskStore struct {
	dir    string
	budget int64

	mu    sync.Mutex
	used  int64             // bytes of the files in names
	names map[string]string // key → file name
}

// openDiskStore makes or scans dir, a directory inside the state
// directory, holding at most budget bytes.
func openDiskStore(dir string, budget int64) (*diskStore, error) {
	d := &diskStore{dir: dir, budget: budget, names: map[string]string{}}
	if err := ownfile.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.used = d.scan(0)
	d.mu.Unlock()
	return d, nil
}

// open opens the file of key, marking it used; fs.ErrNotExist when there
// is none. A file the server could not have left (a second name, a link)
// is removed, not served.
func (d *diskStore) open(key string) (f *os.File, name string, size int64, err error) {
	d.mu.Lock()
	name, known := d.names[key]
	d.mu.Unlock()
	if !known {
		return nil, "", 0, fs.ErrNotExist
	}
	p := filepath.Join(d.dir, name)
	f, size, err = openSized(p)
	switch {
	case err == nil:
		d.touch(f, p)
		return f, name, size, nil
	case errors.Is(err, ownfile.ErrNotOwn):
		os.Remove(p)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", 0, err
	}
	// Removed behind the store's back: count again what is there.
	d.mu.Lock()
	delete(d.names, key)
	d.used = d.scan(0)
	d.mu.Unlock()
	return nil, "", 0, fs.ErrNotExist
}

// fits reports whether size more bytes fit in the budget.
func (d *diskStore) fits(size int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.used+size <= d.budget
}

// write makes the file of key with fill, which writes its bytes and
// returns their sha-256, and returns its name; past the budget the least
// recently used other files are removed.
func (d *diskStore) write(key string, fill func(io.Writer) ([]byte, error)) (string, error) {
	tmp, err := os.CreateTemp(d.dir, ".build-*")
	if errors.Is(err, fs.ErrNotExist) {
		// Removed while the server runs: make it again.
		if err := ownfile.Mkdir(d.dir, 0o755); err != nil {
			return "", err
		}
		tmp, err = os.CreateTemp(d.dir, ".build-*")
	}
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	sum, err := fill(tmp)
	if err != nil {
		tmp.Close()
		return "", err
	}
	fi, err := tmp.Stat()
	if err == nil {
		err = tmp.Close()
	} else {
		tmp.Close()
	}
	if err != nil {
		return "", err
	}
	name := key + "." + hex.EncodeToString(sum)
	p := filepath.Join(d.dir, name)
	if err := os.Rename(tmp.Name(), p); err != nil {
		return "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch old, ok := d.names[key]; {
	case ok && old == name:
		// A concurrent writer's file, replaced by the same bytes: counted.
	case ok:
		d.removeLocked(old)
		fallthrough
	default:
		d.used += fi.Size()
	}
	d.names[key] = name
	if d.used > d.budget {
		d.used = d.scan(d.budget-d.budget/10, p)
	}
	return name, nil
}

// path is the path of the stored file name.
func (d *diskStore) path(name string) string { return filepath.Join(d.dir, name) }

// remove forgets the file of key and removes it.
func (d *diskStore) remove(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if name, ok := d.names[key]; ok {
		d.removeLocked(name)
		delete(d.names, key)
	}
}

// removeLocked removes the file name and takes its bytes off used; d.mu
// is held.
func (d *diskStore) removeLocked(name string) {
	p := filepath.Join(d.dir, name)
	fi, err := os.Lstat(p)
	if err != nil || os.Remove(p) != nil {
		return
	}
	d.used = max(d.used-fi.Size(), 0)
}

// touch marks a file as used (its modification time orders the pruning),
// at most once a minute.
func (d *diskStore) touch(f *os.File, p string) {
	if fi, err := f.Stat(); err == nil && time.Since(fi.ModTime()) > time.Minute {
		now := time.Now()
		os.Chtimes(p, now, now)
	}
}

// scan sums the sizes of the files, removing leftovers of interrupted
// writes and, while the total is over target (when target > 0), the
// oldest files other than keep; d.mu is held. It returns the bytes left.
func (d *diskStore) scan(target int64, keep ...string) int64 {
	entries, err := os.ReadDir(d.dir)
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
		p := filepath.Join(d.dir, e.Name())
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
		key, ok := storedName(e.Name())
		if !ok {
			os.Remove(p) // not named by both ends: made by an older version
			continue
		}
		d.names[key] = e.Name()
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
			if key, ok := storedName(filepath.Base(f.path)); ok {
				delete(d.names, key)
			}
		}
	}
	return total
}

// storedName splits a stored file's name IDHEX.REST.SUMHEX into its key;
// ok is false for other names (older versions', or strangers').
func storedName(name string) (key string, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || len(name)-i-1 != 2*sha256.Size {
		return "", false
	}
	if _, err := hex.DecodeString(name[i+1:]); err != nil {
		return "", false
	}
	key = name[:i]
	id, rest, found := strings.Cut(key, ".")
	if _, err := hex.DecodeString(id); err != nil || !found || len(id) != 2*sha256.Size || rest == "" {
		return "", false
	}
	return key, true
}

// storedSum is the sha-256 a stored file's name gives its bytes.
func storedSum(name string) []byte {
	sum, _ := hex.DecodeString(name[strings.LastIndexByte(name, '.')+1:])
	return sum
}

// openSized opens the stored file p, one the server could have left
// (ownfile.Open): a link or someone else's file put there is not served.
func openSized(p string) (*os.File, int64, error) {
	f, err := ownfile.Open(p, os.O_RDONLY)
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
