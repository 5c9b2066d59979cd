package server

import (
	"bytes"
	"container/list"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hdig/hdig/fileid"
)

// Small files are kept in memory as snapshots, keyed by path and file
// version (fileid.ID), so a GET of one costs the Lstat calls of the
// symlink check instead of open, fstat, sendfile and close: the system
// calls dominate the time a small response takes.
//
// A snapshot is taken only of a regular file whose ID is strong and
// settled (identity.go) when it is read and the same after the read: past
// the settle window any write changes the ID, so the bytes read are
// exactly version ID, and they never change in memory. A snapshot is
// served only while the path's Lstat has that ID (fileid.Same). Its
// digests are hashed from its own bytes, or are the trusted digests of the
// same ID, never untrusted digests hashed from the file on disk.
const (
	smallFileMax    = 256 << 10
	smallFileMemory = 64 << 20
)

// snapshot is one version of a small file, in memory.
type snapshot struct {
	name         string
	id           fileid.ID
	data         []byte
	contentType  string
	compressible bool   // of contentType: variants may be negotiated
	link         string // the zsync Link field value (zsyncLinkValue, relative)
	fields       snapshotFields
	sums         *entry // digests of data; always trusted
	etag         atomic.Pointer[etagMemo]
}

// smallFiles is an LRU of snapshots within smallFileMemory bytes.
type smallFiles struct {
	opens atomic.Int64 // files opened from disk for GET (tests count them)
	takes atomic.Int64 // snapshots taken (tests count them)

	mu    sync.Mutex
	lru   *list.List // of *snapshot, most recent first
	m     map[string]*list.Element
	used  int64
	limit int64 // bytes of snapshots: smallFileMemory
	// evicted holds the versions evicted: taken again only when they fit
	// without evicting another, so that a working set larger than the
	// memory does not read and evict in a loop. Emptied when full.
	evicted map[string]fileid.ID
}

// maxEvicted bounds smallFiles.evicted.
const maxEvicted = 8192

func newSmallFiles() *smallFiles {
	return &smallFiles{lru: list.New(), m: map[string]*list.Element{}, limit: smallFileMemory,
		evicted: map[string]fileid.ID{}}
}

// get returns the snapshot of name when it is version id.
func (c *smallFiles) get(name string, id fileid.ID) *snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[name]
	if !ok {
		return nil
	}
	sn := el.Value.(*snapshot)
	if !fileid.Same(sn.id, id) {
		return nil
	}
	c.lru.MoveToFront(el)
	return sn
}

// has reports whether a snapshot of version id of name is kept.
func (c *smallFiles) has(name string, id fileid.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[name]
	return ok && fileid.Same(el.Value.(*snapshot).id, id)
}

// wants reports whether a snapshot of version id of name (size bytes)
// should be taken: none is kept, and it was not evicted or fits without
// evicting another.
func (c *smallFiles) wants(name string, id fileid.ID, size int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wantsLocked(name, id, size)
}

func (c *smallFiles) wantsLocked(name string, id fileid.ID, size int64) bool {
	if el, ok := c.m[name]; ok && fileid.Same(el.Value.(*snapshot).id, id) {
		return false
	}
	old, evicted := c.evicted[name]
	return !evicted || !fileid.Same(old, id) || c.used+size <= c.limit
}

func (c *smallFiles) put(sn *snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.wantsLocked(sn.name, sn.id, int64(len(sn.data))) {
		return
	}
	delete(c.evicted, sn.name)
	if el, ok := c.m[sn.name]; ok {
		c.used -= int64(len(el.Value.(*snapshot).data))
		c.lru.Remove(el)
	}
	c.m[sn.name] = c.lru.PushFront(sn)
	c.used += int64(len(sn.data))
	c.takes.Add(1)
	for c.used > c.limit {
		last := c.lru.Back()
		old := last.Value.(*snapshot)
		c.lru.Remove(last)
		delete(c.m, old.name)
		c.used -= int64(len(old.data))
		if len(c.evicted) >= maxEvicted {
			clear(c.evicted)
		}
		c.evicted[old.name] = old.id
	}
}

// keepSmall takes a snapshot of the open file f (name, info fi) when it is
// small, regular, strong and settled, and unchanged while it is read. The
// request that opened f is still answered from f.
func (s *Server) keepSmall(name string, f *os.File, fi fs.FileInfo) {
	id := fileid.Of(fi)
	if !fi.Mode().IsRegular() || fi.Size() > smallFileMax || !settled(id, time.Now(), s.cfg.settle) || !s.small.wants(name, id, fi.Size()) {
		return
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, fi.Size()), data); err != nil {
		return
	}
	if !sameFile(f, id) {
		return
	}
	ct := contentType(name, bytes.NewReader(data))
	s.small.put(&snapshot{
		name: name, id: id, data: data,
		contentType: ct, compressible: compressible(ct), link: zsyncLinkValue("", name),
		fields: newSnapshotFields(ct, fi.ModTime(), fi.Size()),
		sums:   newEntry(),
	})
}

// smallRep returns the identity representation of name from its snapshot
// when the path's Lstat info lfi is the snapshot's version, else nil, and
// the snapshot's zsync Link value. The encoded variants are built from the
// file on disk, so a request that negotiates a coding gets nil too.
func (s *Server) smallRep(r *http.Request, name string, lfi fs.FileInfo) (*Representation, string, error) {
	if lfi == nil || !lfi.Mode().IsRegular() || lfi.Size() > smallFileMax {
		return nil, "", nil
	}
	id := fileid.Of(lfi)
	sn := s.small.get(name, id)
	if sn == nil {
		return nil, "", nil
	}
	size := int64(len(sn.data))
	vary := s.codable(size, sn.compressible)
	if vary && negotiate(r.Header) != "" || s.wantsDictionary(r) {
		return nil, "", nil
	}
	s.seedSnapshot(sn)
	rep := &Representation{
		Path: r.URL.Path, File: name, ContentType: sn.contentType,
		Size: size, ModTime: lfi.ModTime(), Content: newMemContent(sn.data),
		sums: sn.sums, vary: vary, key: fileKey{name: name, id: id}, snap: sn,
		// The bytes are immutable: they stay the version they are, and
		// the snapshot's digests are always trusted.
		proof: alwaysSame, immutable: true,
	}
	rep.reopen = func() (*os.File, error) { return s.reopenVersion(name, id) }
	sum, err := rep.Digests(r.Context(), defaultAlgs)
	if err != nil {
		return nil, "", err
	}
	rep.ETag = sn.etagOf(sum[0].Value)
	return rep, sn.link, nil
}

// alwaysSame is the proof of bytes held in memory: settled, and always
// the version they are.
var alwaysSame = &proof{settled: true, same: func() bool { return true }}

// etagOf returns the ETag of the snapshot's sha-256 sum, formatted once.
func (sn *snapshot) etagOf(sum []byte) string {
	if e := sn.etag.Load(); e != nil && bytes.Equal(e.sum, sum) {
		return e.tag
	}
	tag := etagFor(sum)
	e := &etagMemo{sum: sum, tag: tag, field: []string{tag}}
	sn.etag.Store(e)
	return e.tag
}

// etagField is the ETag field value tag as a header slice: the one made
// with the memo when it is the memo's tag, else a new one. Shared slices
// are only read: Set replaces them, Add copies (capacity is length).
func (sn *snapshot) etagField(tag string) []string {
	if e := sn.etag.Load(); e != nil && e.tag == tag {
		return e.field
	}
	return []string{tag}
}

type etagMemo struct {
	sum   []byte
	tag   string
	field []string // []string{tag}
}

// seedSnapshot gives a snapshot without digests the trusted digests of
// its version from the digest cache or the index, if any, so that they are not hashed
// again. Untrusted ones are left: the snapshot hashes its own bytes.
func (s *Server) seedSnapshot(sn *snapshot) {
	if !sn.sums.empty() {
		return
	}
	k := fileKey{name: sn.name, id: sn.id}
	if e := s.cache.peek(k); e != nil {
		if ds, ok := e.trustedDigests(); ok {
			sn.sums.put(ds, true)
			return
		}
	}
	s.index.seed(k, sn.sums) // the indexed sha-256 of the version, if any
}

// memContent is a snapshot's bytes as Content, for one request.
type memContent struct {
	bytes.Reader // by value: one allocation for both
	data         []byte
}

func newMemContent(data []byte) *memContent {
	m := &memContent{data: data}
	m.Reset(data)
	return m
}

// writeTo writes the next n bytes (at most) to w in one Write.
func (m *memContent) writeTo(w io.Writer, n int64) (int64, error) {
	off := int64(len(m.data)) - int64(m.Len())
	n = min(n, int64(m.Len()))
	k, err := w.Write(m.data[off : off+n])
	m.Seek(off+int64(k), io.SeekStart)
	return int64(k), err
}
