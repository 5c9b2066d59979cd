package server

import (
	"container/list"
	"context"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/hdig/hdig/verify"
)

// fileKey identifies one version of a file's representation: a change of
// size, modification time or inode (a rename over it) makes a new key, so a
// cached digest never outlives the bytes it covers. enc names the encoded
// variant ("" for identity).
type fileKey struct {
	name  string
	size  int64
	mtime int64
	dev   uint64
	ino   uint64
	enc   string
}

func keyOf(name string, fi fs.FileInfo) fileKey {
	dev, ino := fileID(fi)
	return fileKey{name: name, size: fi.Size(), mtime: fi.ModTime().UnixNano(), dev: dev, ino: ino}
}

// entry holds the digests of one representation, computed lazily: each
// algorithm is computed at most once, on the first request that needs it.
// Concurrent requests for the same missing algorithm wait for one pass.
type entry struct {
	mu   sync.Mutex
	sums map[string][]byte
}

func newEntry() *entry { return &entry{sums: map[string][]byte{}} }

// digests returns the digests for algs, hashing r (size bytes) once for all
// the missing ones.
func (e *entry) digests(ctx context.Context, r io.ReaderAt, size int64, algs []verify.Algorithm) ([]verify.Digest, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var missing []verify.Algorithm
	for _, a := range algs {
		if _, ok := e.sums[a.Key]; !ok {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		hashPasses.Add(1)
		sums, _, err := verify.Sum(ctxReader{ctx, io.NewSectionReader(r, 0, size)}, missing)
		if err != nil {
			return nil, err
		}
		for _, d := range sums {
			e.sums[d.Algorithm] = d.Value
		}
	}
	out := make([]verify.Digest, len(algs))
	for i, a := range algs {
		out[i] = verify.Digest{Algorithm: a.Key, Value: e.sums[a.Key]}
	}
	return out, nil
}

// put records digests computed elsewhere (an upload hashes as it stores).
func (e *entry) put(ds []verify.Digest) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range ds {
		e.sums[d.Algorithm] = d.Value
	}
}

// hashPasses counts passes over representation data, for tests.
var hashPasses atomic.Int64

// ctxReader stops reading once ctx is done, so an abandoned request does not
// keep hashing a large file.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// maxCacheEntries bounds the digest cache; the least recently used entry is
// dropped first.
const maxCacheEntries = 8192

// digestCache maps file versions to their digest entries.
type digestCache struct {
	mu  sync.Mutex
	max int
	lru *list.List // of *cacheItem, most recent first
	m   map[fileKey]*list.Element
}

type cacheItem struct {
	key fileKey
	e   *entry
}

func newDigestCache(max int) *digestCache {
	return &digestCache{max: max, lru: list.New(), m: map[fileKey]*list.Element{}}
}

// get returns the entry for k, creating it if needed.
func (c *digestCache) get(k fileKey) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*cacheItem).e
	}
	e := newEntry()
	c.m[k] = c.lru.PushFront(&cacheItem{key: k, e: e})
	for c.lru.Len() > c.max {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.m, last.Value.(*cacheItem).key)
	}
	return e
}

// len reports the number of cached entries.
func (c *digestCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
