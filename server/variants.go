package server

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"sync"

	"github.com/hdig/hdig/fileid"
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
// otherwise poison its content address. The name of a variant file also
// carries the sha-256 of the encoded bytes (IDHEX.ENC.ENCHEX: both ends),
// which the server checks when it first hashes the variant (selectRep), so
// a variant file changed behind its back is dropped, not served.
type variantStore struct {
	disk   *diskStore // DIR/variants; nil without a state directory
	budget int64

	mu      sync.Mutex
	used    int64
	lru     *list.List // of *memVariant, most recent first
	mem     map[string]*list.Element
	pending map[string]*build

	// encode writes src in coding enc to dst: compress, or for a
	// dictionary coding (ENC = dcb-DICTHEX, dcz-DICTHEX) the server's
	// dictionary encoder.
	encode func(dst io.Writer, src io.Reader, enc string) error
}

type memVariant struct {
	key  string
	data []byte
	sum  []byte // sha-256 of data
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
	sum  []byte
	err  error
}

func newVariantStore(dir string, budget int64) (*variantStore, error) {
	vs := &variantStore{budget: budget, lru: list.New(), mem: map[string]*list.Element{},
		pending: map[string]*build{}, encode: compress}
	if dir != "" {
		d, err := openDiskStore(filepath.Join(dir, "variants"), maxVariantDisk)
		if err != nil {
			return nil, err
		}
		vs.disk = d
	}
	return vs, nil
}

// compressChecked compresses src into dst, checks that the bytes read had
// the sha-256 sum and returns the sha-256 of the bytes written.
func (vs *variantStore) compressChecked(dst io.Writer, src io.Reader, enc string, sum []byte) ([]byte, error) {
	h, out := sha256.New(), sha256.New()
	if err := vs.encode(io.MultiWriter(dst, out), io.TeeReader(src, h), enc); err != nil {
		if errors.Is(err, errCannotEncode) {
			// Remembered only when the bytes refused were the version
			// named: a file rewritten during the read is tried again.
			if _, cerr := io.Copy(h, src); cerr != nil || !bytes.Equal(h.Sum(nil), sum) {
				return nil, errChangedDuringBuild
			}
		}
		return nil, err
	}
	if !bytes.Equal(h.Sum(nil), sum) {
		return nil, errChangedDuringBuild
	}
	return out.Sum(nil), nil
}

// variant is an encoded variant opened for one request.
type variant struct {
	key     string // IDHEX.ENC
	content Content
	size    int64
	sum     []byte // the sha-256 its bytes are known by
	id      fileid.ID
	release func()
}

// version is what the digests of the variant's bytes are cached under
// with its name: a file's ID (size, times, inode) for a variant file, so
// that a write to it, which changes its change time, has them hashed
// again and checked against the name; the size for bytes in memory.
func (v *variant) version() fileid.ID {
	if v.id.Size == v.size && v.id != (fileid.ID{}) {
		return v.id
	}
	return fileid.ID{Size: v.size}
}

// open returns the enc variant of the identity content whose sha-256 is
// sum, building it from src on first use.
func (vs *variantStore) open(sum []byte, enc string, src io.Reader) (*variant, error) {
	key := hex.EncodeToString(sum) + "." + enc
	if vs.disk != nil {
		return vs.openDisk(key, enc, src, sum)
	}
	mv, err := vs.memory(key, enc, src, sum)
	if err != nil {
		return nil, err
	}
	return &variant{key: key, content: bytes.NewReader(mv.data), size: int64(len(mv.data)), sum: mv.sum, release: func() {}}, nil
}

// lookup returns the enc variant of the content whose sha-256 is sum when
// it is built already: no build, no temporary file.
func (vs *variantStore) lookup(sum []byte, enc string) (*variant, bool) {
	key := hex.EncodeToString(sum) + "." + enc
	if vs.disk != nil {
		f, name, size, err := vs.disk.open(key)
		if err != nil {
			return nil, false
		}
		return diskVariant(key, name, f, size), true
	}
	vs.mu.Lock()
	el, inMemory := vs.mem[key]
	if inMemory {
		vs.lru.MoveToFront(el)
	}
	vs.mu.Unlock()
	if !inMemory {
		return nil, false
	}
	mv := el.Value.(*memVariant)
	return &variant{key: key, content: bytes.NewReader(mv.data), size: int64(len(mv.data)), sum: mv.sum, release: func() {}}, true
}

// discard forgets a variant whose bytes are not the ones its name says.
func (vs *variantStore) discard(v *variant) {
	if vs.disk != nil {
		vs.disk.remove(v.key)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if el, ok := vs.mem[v.key]; ok {
		vs.lru.Remove(el)
		delete(vs.mem, v.key)
		vs.used -= int64(len(el.Value.(*memVariant).data))
	}
}

func (vs *variantStore) memory(key, enc string, src io.Reader, sum []byte) (*memVariant, error) {
	vs.mu.Lock()
	if el, ok := vs.mem[key]; ok {
		vs.lru.MoveToFront(el)
		vs.mu.Unlock()
		return el.Value.(*memVariant), nil
	}
	if b, ok := vs.pending[key]; ok {
		vs.mu.Unlock()
		<-b.done
		return &memVariant{key: key, data: b.data, sum: b.sum}, b.err
	}
	b := &build{done: make(chan struct{})}
	vs.pending[key] = b
	vs.mu.Unlock()

	var buf bytes.Buffer
	b.sum, b.err = vs.compressChecked(&buf, src, enc, sum)
	b.data = buf.Bytes()
	mv := &memVariant{key: key, data: b.data, sum: b.sum}

	vs.mu.Lock()
	delete(vs.pending, key)
	if b.err == nil {
		vs.keep(mv)
	}
	vs.mu.Unlock()
	close(b.done)
	return mv, b.err
}

// keep adds a variant to the memory budget; vs.mu is held.
func (vs *variantStore) keep(mv *memVariant) {
	key, data := mv.key, mv.data
	if int64(len(data)) > vs.budget {
		return
	}
	vs.mem[key] = vs.lru.PushFront(mv)
	vs.used += int64(len(data))
	for vs.used > vs.budget {
		last := vs.lru.Back()
		mv := last.Value.(*memVariant)
		vs.lru.Remove(last)
		delete(vs.mem, mv.key)
		vs.used -= int64(len(mv.data))
	}
}
