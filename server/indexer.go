package server

import (
	"context"
	"crypto/sha256"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hdig/hdig/fileid"
)

// The background indexer hashes the served files before anyone asks for
// them, so that a file's first response has its ETag and Repr-Digest in
// the header without a wait (digestIndex). It is bounded: one goroutine,
// on a thread at the lowest CPU and I/O priority, one file at a time, and
// it pauses while any request hashes (requestHashing). While requests
// come, it also gives way to them (yieldReader): its goroutine holds one
// of the Go scheduler's processors while it hashes, and the thread's low
// priority does not give that processor back when the kernel runs other
// threads instead, so the indexer's share of the time is bounded. A file changed
// within the settle window is left for a later pass: its digests could not
// be trusted by its ID.

// indexEvery is the pause between two passes over the directory; after a
// pass that left unsettled files, the next comes once they have settled.
const indexEvery = 10 * time.Minute

// indexChunk is the most the indexer reads between two looks at the
// requests: about a tenth of a millisecond of SHA-256.
const indexChunk = 256 << 10

// indexBusyPause is the pause after a chunk during which a request began,
// in multiples of that chunk's time (reading and hashing it): while
// requests keep coming the indexer takes at most 1/(1+indexBusyPause) of
// the time, and runs flat out when none come.
const indexBusyPause = 19

// indexMaxPause bounds that pause: a chunk that took long (a stalled
// disk, a descheduled thread) says little about the requests.
const indexMaxPause = time.Second

// requestHashing counts the hash passes of requests in progress (a cache
// entry filled, a body hashed as it is sent): the indexer waits while
// there are any.
var requestHashing atomic.Int64

// StartIndexer starts the background indexer; it stops when ctx is done.
func (s *Server) StartIndexer(ctx context.Context) {
	go func() {
		// The thread is never unlocked: it ends with the goroutine, its
		// priority with it.
		runtime.LockOSThread()
		lowPriority()
		for {
			wait := indexEvery
			if _, unsettled := s.indexPass(ctx); unsettled > 0 {
				wait = 2 * s.cfg.settle
			}
			if !sleep(ctx, wait) {
				return
			}
		}
	}()
}

// indexPass walks the directory once, hashing every regular file whose
// version is not indexed. It returns the files hashed and those left
// because they had not settled.
func (s *Server) indexPass(ctx context.Context) (hashed, unsettled int) {
	fs.WalkDir(s.root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return fs.SkipAll
		}
		if err != nil || name != "." && strings.HasPrefix(d.Name(), ".") || d.Type()&fs.ModeSymlink != 0 {
			if d != nil && d.IsDir() && name != "." {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if fi, err := d.Info(); err == nil && s.isPrivate(fi) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			switch s.indexFile(ctx, name) {
			case indexHashed:
				hashed++
			case indexUnsettled:
				unsettled++
			}
		}
		return nil
	})
	return hashed, unsettled
}

type indexResult int

const (
	indexSkipped indexResult = iota
	indexHashed
	indexUnsettled
)

// indexFile indexes the version of name it opens.
func (s *Server) indexFile(ctx context.Context, name string) indexResult {
	f, err := s.root.OpenFile(name, openNonblock, 0)
	if err != nil {
		return indexSkipped
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return indexSkipped
	}
	id := fileid.Of(fi)
	if !id.Strong() {
		return indexSkipped
	}
	if _, ok := s.index.lookup(name, id); ok {
		return indexSkipped
	}
	if e := s.cache.peek(fileKey{name: name, id: id}); e != nil {
		if ds, ok := e.trustedDigests(); ok {
			for _, d := range ds {
				if d.Algorithm == sha256Alg.Key {
					s.index.add(name, id, d.Value)
					return indexSkipped
				}
			}
		}
	}
	if !settled(id, time.Now(), s.cfg.settle) {
		return indexUnsettled
	}
	h := sha256.New()
	s.indexHashes.Add(1)
	if _, err := io.CopyBuffer(h, &yieldReader{ctx: ctx, s: s, r: io.NewSectionReader(f, 0, fi.Size())}, make([]byte, indexChunk)); err != nil {
		return indexSkipped
	}
	if !sameFile(f, id) {
		return indexUnsettled // changed while hashed: the next pass sees the new version
	}
	s.index.add(name, id, h.Sum(nil))
	return indexHashed
}

// yieldReader reads at most indexChunk bytes at a time, each once no
// request is hashing, and, when a request began (Server.begun) since the
// last chunk began, after a pause of indexBusyPause times that chunk's
// time (the read, and the hashing of the bytes it returned).
type yieldReader struct {
	ctx   context.Context
	s     *Server // nil: no look at the requests begun
	r     io.Reader
	begun int64     // s.begun when the last chunk began
	start time.Time // when the last chunk began; zero: none yet
}

func (y *yieldReader) Read(p []byte) (int, error) {
	if s := y.s; s != nil && !y.start.IsZero() && s.begun.Load() != y.begun {
		s.indexPauses.Add(1)
		if !s.cfg.sleep(y.ctx, min(indexBusyPause*time.Since(y.start), indexMaxPause)) {
			return 0, y.ctx.Err()
		}
	}
	for requestHashing.Load() > 0 {
		if !sleep(y.ctx, 5*time.Millisecond) {
			return 0, y.ctx.Err()
		}
	}
	if err := y.ctx.Err(); err != nil {
		return 0, err
	}
	if y.s != nil {
		y.begun, y.start = y.s.begun.Load(), time.Now()
	}
	return y.r.Read(p[:min(len(p), indexChunk)])
}
