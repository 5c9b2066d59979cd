package server

import (
	"bytes"
	"container/list"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// variantStore holds the precompressed variants of files, content-addressed
// by the sha-256 of the identity bytes and the coding, so a variant is
// built once per content whatever its path or modification time. Without a
// state directory the variants live in memory within a byte budget (least
// recently used dropped first; a variant larger than the budget is not
// kept); with one they are files in DIR/variants, written atomically and
// kept until removed by hand.
type variantStore struct {
	dir    string
	budget int64

	mu      sync.Mutex
	used    int64
	lru     *list.List // of *memVariant, most recent first
	mem     map[string]*list.Element
	pending map[string]*build
}

type memVariant struct {
	key  string
	data []byte
}

// build is an in-flight compression other requests wait for.
type build struct {
	done chan struct{}
	data []byte
	err  error
}

func newVariantStore(dir string, budget int64) (*variantStore, error) {
	vs := &variantStore{budget: budget, lru: list.New(), mem: map[string]*list.Element{}, pending: map[string]*build{}}
	if dir != "" {
		vs.dir = filepath.Join(dir, "variants")
		if err := os.MkdirAll(vs.dir, 0o755); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// open returns the enc variant of the identity content whose sha-256 is
// sum, building it from src on first use. The closer releases a file.
func (vs *variantStore) open(sum []byte, enc string, src io.Reader) (Content, int64, func(), error) {
	key := hex.EncodeToString(sum) + "." + enc
	if vs.dir != "" {
		return vs.openDisk(key, enc, src)
	}
	data, err := vs.memory(key, enc, src)
	if err != nil {
		return nil, 0, nil, err
	}
	return bytes.NewReader(data), int64(len(data)), func() {}, nil
}

func (vs *variantStore) memory(key, enc string, src io.Reader) ([]byte, error) {
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
	b.err = compress(&buf, src, enc)
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

func (vs *variantStore) openDisk(key, enc string, src io.Reader) (Content, int64, func(), error) {
	p := filepath.Join(vs.dir, key)
	if f, size, err := openSized(p); err == nil {
		return f, size, func() { f.Close() }, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil, err
	}
	if err := vs.writeDisk(p, enc, src); err != nil {
		return nil, 0, nil, err
	}
	f, size, err := openSized(p)
	if err != nil {
		return nil, 0, nil, err
	}
	return f, size, func() { f.Close() }, nil
}

// writeDisk compresses into a temporary file and renames it into place, so
// concurrent builders race harmlessly (the bytes are identical).
func (vs *variantStore) writeDisk(p, enc string, src io.Reader) error {
	tmp, err := os.CreateTemp(vs.dir, ".build-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := compress(tmp, src, enc); err != nil {
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
