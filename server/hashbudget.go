package server

import (
	"container/list"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hdig/hdig/verify"
)

// Content-Digest of partial content costs a read and a hash of every byte
// of the range, per request, where sendfile alone would do. Clients that
// loop over large ranges asking for it would otherwise take the CPU from
// everyone. So:
//
//   - ranges up to freeHashMax are always hashed (cheap);
//   - larger ones reserve their length from a budget per client (remote
//     IP) and one for the whole server while they are hashed; when either
//     is spent, Content-Digest is omitted (it is optional, RFC 9530 §3)
//     rather than making the request wait;
//   - the digests of a range hashed before the header are kept in a small
//     LRU keyed by the representation's strong ETag (a hash of its bytes),
//     the range and the algorithms, so repeated ranges are not hashed again.
const (
	freeHashMax      = 1 << 20
	clientHashBudget = 64 << 20
	rangeCacheSize   = 1024
)

// serverHashBudget is the bytes all clients together may have in hashing:
// 64 MiB per two cores.
func serverHashBudget() int64 {
	return int64(max(1, runtime.GOMAXPROCS(0)/2)) * 64 << 20
}

// hashBudget is a byte budget for hashing, per client and overall.
type hashBudget struct {
	mu        sync.Mutex
	limit     int64
	perClient int64
	used      int64
	byClient  map[string]int64
	hashed    atomic.Int64 // bytes of ranges hashed before the header (tests count them)
}

func newHashBudget() *hashBudget {
	return &hashBudget{limit: serverHashBudget(), perClient: clientHashBudget, byClient: map[string]int64{}}
}

// clientOf is the remote IP of a request.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// reserve takes n bytes for client if both budgets have them, without
// waiting; up to freeHashMax is free.
func (b *hashBudget) reserve(client string, n int64) bool {
	if n <= freeHashMax {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit || b.byClient[client]+n > b.perClient {
		return false
	}
	b.used += n
	b.byClient[client] += n
	return true
}

func (b *hashBudget) release(client string, n int64) {
	if n <= freeHashMax {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.byClient[client] -= n; b.byClient[client] <= 0 {
		delete(b.byClient, client)
	}
}

// rangeCache is an LRU of range digests.
type rangeCache struct {
	mu  sync.Mutex
	lru *list.List // of *rangeEntry, most recent first
	m   map[string]*list.Element
}

type rangeEntry struct {
	key string
	ds  []verify.Digest
}

func newRangeCache() *rangeCache {
	return &rangeCache{lru: list.New(), m: map[string]*list.Element{}}
}

func rangeKey(etag string, off, n int64, algs []verify.Algorithm) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d+%d", etag, off, n)
	for _, a := range algs {
		b.WriteString(" " + a.Key)
	}
	return b.String()
}

func (c *rangeCache) get(key string) ([]verify.Digest, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*rangeEntry).ds, true
}

func (c *rangeCache) put(key string, ds []verify.Digest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return
	}
	c.m[key] = c.lru.PushFront(&rangeEntry{key: key, ds: ds})
	for c.lru.Len() > rangeCacheSize {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.m, last.Value.(*rangeEntry).key)
	}
}

// rangeContentDigests returns the digests of bytes [off, off+n) of rep for
// a header Content-Digest, from the cache or hashed within the budgets;
// ok is false when the budgets are spent and the field is to be omitted.
func (s *Server) rangeContentDigests(r *http.Request, rep *Representation, off, n int64, algs []verify.Algorithm) ([]verify.Digest, bool, error) {
	key := rangeKey(rep.ETag, off, n, algs)
	if ds, ok := s.ranges.get(key); ok {
		return ds, true, nil
	}
	client := clientOf(r)
	if !s.hashing.reserve(client, n) {
		return nil, false, nil
	}
	defer s.hashing.release(client, n)
	ds, err := rangeDigests(r.Context(), rep.Content, off, n, algs)
	if err != nil {
		return nil, false, err
	}
	s.hashing.hashed.Add(n)
	if rep.ETag != "" && rep.Trusted() && (rep.proof == nil || rep.proof.same()) {
		// Kept only for trusted digests of a file still the version they
		// were hashed from: an untrusted ETag, or a file written since
		// its pass, may not name the bytes just hashed (the guard checks
		// this response alone, and a later version may have the ETag's
		// bytes again).
		s.ranges.put(key, ds)
	}
	return ds, true, nil
}
