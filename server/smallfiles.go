package server

import (
	"bytes"
	"container/list"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hdig/hdig/fileid"
)

// Small files are kept in memory, keyed by path and file version
// (fileid: size, mtime, ctime, device, inode), so a GET of one costs the
// Lstat that the symlink check makes anyway instead of open, fstat,
// sendfile and close: the system calls dominate the time a small
// response takes. A file whose version is not strong (no ctime or inode)
// is never kept.
const (
	smallFileMax    = 256 << 10
	smallFileMemory = 64 << 20
)

// smallFiles is an LRU of small files' bytes within smallFileMemory.
type smallFiles struct {
	opens atomic.Int64 // files opened from disk for GET (tests count them)

	mu   sync.Mutex
	lru  *list.List // of *smallEntry, most recent first
	m    map[string]*list.Element
	used int64
}

type smallEntry struct {
	name string
	id   fileid.ID
	data []byte
}

func newSmallFiles() *smallFiles {
	return &smallFiles{lru: list.New(), m: map[string]*list.Element{}}
}

func (c *smallFiles) get(name string, id fileid.ID) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[name]
	if !ok {
		return nil, false
	}
	e := el.Value.(*smallEntry)
	if !fileid.Same(e.id, id) {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.data, true
}

func (c *smallFiles) put(name string, id fileid.ID, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[name]; ok {
		c.used -= int64(len(el.Value.(*smallEntry).data))
		c.lru.Remove(el)
	}
	c.m[name] = c.lru.PushFront(&smallEntry{name: name, id: id, data: data})
	c.used += int64(len(data))
	for c.used > smallFileMemory {
		last := c.lru.Back()
		e := last.Value.(*smallEntry)
		c.lru.Remove(last)
		delete(c.m, e.name)
		c.used -= int64(len(e.data))
	}
}

// memFile is a small file's bytes as Content.
type memFile struct {
	*bytes.Reader
	data []byte
}

func newMemFile(data []byte) *memFile { return &memFile{Reader: bytes.NewReader(data), data: data} }

// openContent opens a file or directory for GET: a small regular file from
// memory when its version is kept, else from disk (and kept when small).
// The closer releases what was opened.
func (s *Server) openContent(name string) (Content, fs.FileInfo, func(), error) {
	lfi, err := s.linkInfo(name)
	if err != nil {
		return nil, nil, nil, err
	}
	if lfi != nil && lfi.Mode().IsRegular() && lfi.Size() <= smallFileMax {
		if data, ok := s.small.get(name, fileid.Of(lfi)); ok {
			return newMemFile(data), lfi, func() {}, nil
		}
	}
	f, err := s.root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	s.small.opens.Add(1)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	if data, ok := s.readSmall(f, fi); ok {
		f.Close()
		s.small.put(name, fileid.Of(fi), data)
		return newMemFile(data), fi, func() {}, nil
	}
	return f, fi, func() { f.Close() }, nil
}

// readSmall reads a small regular file whole, if its version is strong
// and did not change while it was read.
func (s *Server) readSmall(f *os.File, fi fs.FileInfo) ([]byte, bool) {
	id := fileid.Of(fi)
	if !fi.Mode().IsRegular() || fi.Size() > smallFileMax || !id.Strong() {
		return nil, false
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, fi.Size()), data); err != nil {
		return nil, false
	}
	after, err := f.Stat()
	if err != nil || !fileid.Same(id, fileid.Of(after)) {
		return nil, false
	}
	return data, true
}
