package server

import (
	"container/list"
	"context"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/verify"
)

// fileKey identifies one version of a file's representation by its
// fileid.ID: size, modification time, change time, device and inode. An
// in-place edit with the modification time put back (dd conv=notrunc; touch
// -d), or a same-size cp -p, still changes the change time, so it makes a
// new key. enc names the encoded variant ("" for identity); a variant's name
// is the hex sha-256 of its identity bytes.
type fileKey struct {
	name string
	id   fileid.ID
	enc  string
}

func keyOf(name string, fi fs.FileInfo) fileKey {
	return fileKey{name: name, id: fileid.Of(fi)}
}

// entry holds the digests of one representation, computed lazily: each
// algorithm is computed at most once, on the first request that needs it.
// Concurrent requests for the same missing algorithm wait for one pass.
//
// trusted says the digests are known to cover the bytes the key names: they
// were hashed from a file whose ID was strong and settled (see identity.go)
// before the pass and unchanged after it, or from bytes the server holds
// itself. Digests of an untrusted entry are only sent with a check of the
// bytes sent (guard.go).
//
// passes counts the hash passes begun over the entry; from is the number
// of the oldest pass its sums came from (0: put, or none). A request that
// must not use digests older than itself (proof.unchecked) takes a pass
// begun after it arrived (from > proof.since) as its own, so requests
// queued behind one pass share it instead of hashing once each.
type entry struct {
	mu      sync.Mutex
	sums    map[string][]byte
	trusted bool
	passes  atomic.Uint64
	from    uint64
}

func newEntry() *entry { return &entry{sums: map[string][]byte{}} }

// proof is how a hash pass over a file is confirmed: settled says the ID
// was strong and old enough before the pass began, same that the file
// still has it after the pass. streamed says the response will hash every
// byte of the file as it sends it (a plain GET), which confirms untrusted
// digests of a settled file without a pass of their own (entry.confirm).
type proof struct {
	settled  bool
	same     func() bool
	streamed bool
	// unchecked: the request may be answered on the digests alone, with
	// no body the guard hashes (HEAD, a 304 or 412 on If-None-Match or
	// If-Match, a write's preconditions): untrusted digests are hashed
	// again for it, settled or not, unless a pass begun after the request
	// arrived (since: the entry's passes then) made them.
	unchecked bool
	since     uint64
}

// digests returns the digests for algs, hashing r (size bytes) once for all
// the missing ones, and whether they are trusted. pf is nil for bytes the
// server holds (variants, listings), which are always trusted. An untrusted
// entry whose file has since settled is hashed again, so that it can become
// trusted.
func (e *entry) digests(ctx context.Context, r io.ReaderAt, size int64, algs []verify.Algorithm, pf *proof) ([]verify.Digest, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if pf != nil && (pf.settled && !pf.streamed || pf.unchecked && e.from <= pf.since) && !e.trusted && len(e.sums) > 0 {
		e.sums = map[string][]byte{}
	}
	var missing []verify.Algorithm
	for _, a := range algs {
		if _, ok := e.sums[a.Key]; !ok {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		first := len(e.sums) == 0
		pass := e.passes.Add(1)
		hashPasses.Add(1)
		requestHashing.Add(1)
		sums, _, err := verify.Sum(ctxReader{ctx, io.NewSectionReader(r, 0, size)}, missing)
		requestHashing.Add(-1)
		if err != nil {
			return nil, false, err
		}
		ok := pf == nil || pf.settled && pf.same()
		if first {
			e.trusted, e.from = ok, pass
		} else {
			e.trusted = e.trusted && ok
		}
		for _, d := range sums {
			e.sums[d.Algorithm] = d.Value
		}
	}
	out := make([]verify.Digest, len(algs))
	for i, a := range algs {
		out[i] = verify.Digest{Algorithm: a.Key, Value: e.sums[a.Key]}
	}
	return out, e.trusted, nil
}

// confirm marks the entry trusted when the bytes of a settled file, hashed
// as they were sent, had the digests used, and those are all it holds.
func (e *entry) confirm(used usedDigests) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, v := range e.sums {
		if u, ok := used.get(k); !ok || string(u) != string(v) {
			return
		}
	}
	e.trusted = len(e.sums) > 0
}

// put records digests computed elsewhere (an upload hashes as it stores).
// They are trusted when the caller wrote the bytes itself.
func (e *entry) put(ds []verify.Digest, trusted bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.from = 0 // not from a pass: never taken as begun after a request
	if len(e.sums) == 0 {
		e.trusted = trusted
	} else {
		e.trusted = e.trusted && trusted
	}
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

// drop forgets the entry for k: its digests were found not to match the
// bytes.
func (c *digestCache) drop(k fileKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.lru.Remove(el)
		delete(c.m, k)
	}
}

// len reports the number of cached entries.
func (c *digestCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// peek returns the entry for k, or nil; it creates none.
func (c *digestCache) peek(k fileKey) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		return el.Value.(*cacheItem).e
	}
	return nil
}

// empty reports whether the entry holds no digests.
func (e *entry) empty() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.sums) == 0
}

// has reports whether the entry holds a digest of algorithm key.
func (e *entry) has(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.sums[key]
	return ok
}

// trustedDigests returns the entry's digests when they are trusted.
func (e *entry) trustedDigests() ([]verify.Digest, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.trusted || len(e.sums) == 0 {
		return nil, false
	}
	ds := make([]verify.Digest, 0, len(e.sums))
	for k, v := range e.sums {
		ds = append(ds, verify.Digest{Algorithm: k, Value: v})
	}
	return ds, true
}
