package server

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/hdig/hdig/verify"
)

// guard sits between http.ServeContent and the bodyWriter of a file's
// identity representation and makes sure no digest is sent with a clean end
// over bytes it does not cover. It holds back the last byte of the body
// and, before sending it, checks the bytes:
//
//   - trusted digests (hashed from a settled file, see identity.go): the
//     file must still have the ID it had when the request opened it;
//   - otherwise a 200 is hashed as it streams and must match every digest
//     the response used (ETag, Repr-Digest, Content-Digest); any other
//     status with a body reads the file again after streaming.
//
// On a failed check the cached digests are dropped and the connection is
// cut, so the client sees a truncated body, never a wrong digest with a
// clean end. A trusted 200 keeps the sendfile path for all but one byte.
type guard struct {
	w      http.ResponseWriter // the bodyWriter
	r      *http.Request
	s      *Server
	rep    *Representation
	active bool

	status  int
	hasher  *verify.Hasher // a 200 of untrusted digests, hashed as sent
	n       int64          // body bytes seen
	want    int64          // body bytes ServeContent announced (Content-Length), -1: unknown
	pending []byte         // the byte held back
}

// A snapshot in memory (Representation.immutable) needs no check: its
// bytes are the version its digests were hashed from, and nothing can
// change them; the guard still holds back its last byte when work begun
// for the request must be done first (BeforeEnd).
func (s *Server) newGuard(w http.ResponseWriter, r *http.Request, rep *Representation) *guard {
	active := rep.proof != nil && r.Method != http.MethodHead && (!rep.immutable || len(rep.waits) > 0)
	return &guard{w: w, r: r, s: s, rep: rep, active: active}
}

func (g *guard) Header() http.Header { return g.w.Header() }

// Unwrap lets http.ResponseController reach the connection.
func (g *guard) Unwrap() http.ResponseWriter { return g.w }

func (g *guard) WriteHeader(code int) {
	if g.status == 0 {
		g.status = code
		// Only a 200 or 206 carries the representation's bytes.
		g.active = g.active && (code == http.StatusOK || code == http.StatusPartialContent)
		// What ServeContent will write, before the bodyWriter drops
		// Content-Length for a chunked body with trailers.
		g.want = -1
		if n, err := strconv.ParseInt(g.w.Header().Get("Content-Length"), 10, 64); err == nil {
			g.want = n
		}
		if g.active && guardHook != nil {
			guardHook()
		}
	}
	g.w.WriteHeader(code)
	// After the bodyWriter settled Content-Digest: every digest used is
	// known now.
	if g.active && g.hasher == nil && code == http.StatusOK && (g.rep.stream || !g.rep.trusted) {
		algs := g.usedAlgs()
		if g.rep.stream {
			algs = g.rep.streamAlgs
		}
		g.hasher = verify.NewHasher(algs)
		requestHashing.Add(1)
	}
}

// usedAlgs lists the algorithms of the digests the response used.
func (g *guard) usedAlgs() []verify.Algorithm {
	var algs []verify.Algorithm
	for _, d := range g.rep.used {
		if a, ok := verify.Lookup(d.Algorithm); ok {
			algs = append(algs, a)
		}
	}
	return algs
}

// Write passes p on, holding back its last byte.
func (g *guard) Write(p []byte) (int, error) {
	if g.status == 0 {
		g.WriteHeader(http.StatusOK)
	}
	if !g.active || len(p) == 0 {
		return g.w.Write(p)
	}
	if g.hasher != nil {
		g.hasher.Write(p)
	}
	g.n += int64(len(p))
	if len(g.pending) > 0 {
		if _, err := g.w.Write(g.pending); err != nil {
			return 0, err
		}
		g.pending = g.pending[:0]
	}
	if _, err := g.w.Write(p[:len(p)-1]); err != nil {
		return 0, err
	}
	g.pending = append(g.pending, p[len(p)-1])
	return len(p), nil
}

// ReadFrom keeps the bodyWriter's ReadFrom (and so sendfile) for all but
// the last byte of ServeContent's io.CopyN.
func (g *guard) ReadFrom(src io.Reader) (int64, error) {
	if g.status == 0 {
		g.WriteHeader(http.StatusOK)
	}
	rf, ok := g.w.(io.ReaderFrom)
	lr, limited := src.(*io.LimitedReader)
	if !ok || !g.active {
		if ok {
			return rf.ReadFrom(src)
		}
		return io.Copy(guardOnly{g}, src)
	}
	if !limited || lr.N < 2 || len(g.pending) > 0 {
		return io.Copy(guardOnly{g}, src)
	}
	body := &io.LimitedReader{R: lr.R, N: lr.N - 1}
	var in io.Reader = body
	if g.hasher != nil {
		in = io.TeeReader(body, g.hasher)
	}
	n, err := rf.ReadFrom(in)
	g.n += n
	lr.N -= n
	if err != nil {
		return n, err
	}
	m, err := io.Copy(guardOnly{g}, lr)
	return n + m, err
}

// guardOnly hides the guard's ReadFrom so io.Copy uses Write.
type guardOnly struct{ g *guard }

func (o guardOnly) Write(p []byte) (int, error) { return o.g.Write(p) }

// finish checks the bytes sent and then sends the byte held back, or cuts
// the connection.
func (g *guard) finish() {
	if !g.active {
		return
	}
	if g.want >= 0 && g.n != g.want {
		// Short of what was announced (the file shrank, a read failed,
		// the client left), even by every byte: never a clean end, which
		// a chunked body would give its trailers, over bytes not sent.
		http.NewResponseController(g.w).Flush()
		panic(http.ErrAbortHandler)
	}
	if len(g.pending) == 0 {
		return
	}
	for _, wait := range g.rep.waits {
		wait()
	}
	if g.rep.stream {
		if !g.finishStream() {
			g.cut()
		}
		g.w.Write(g.pending)
		g.pending = nil
		return
	}
	if !g.check() {
		g.cut()
	}
	// The whole file was checked against the digests used (hashed as sent,
	// or read again): when it had settled before this request and has the
	// same ID now, those digests are trusted from now on.
	if rep := g.rep; !rep.trusted && rep.proof.settled && rep.proof.same() {
		rep.sums.confirm(rep.used)
	}
	g.w.Write(g.pending)
	g.pending = nil
}

// cut drops the cached digests and the connection: the client sees a
// truncated body.
func (g *guard) cut() {
	g.s.cache.drop(g.rep.key)
	g.s.cfg.logger.Warn("file changed while it was sent; response cut", "path", g.r.URL.Path)
	http.NewResponseController(g.w).Flush()
	panic(http.ErrAbortHandler)
}

// guardHook, when set (by tests), runs when the header is written: after
// the digests are settled, before the body is read.
var guardHook func()

func (g *guard) check() bool {
	rep := g.rep
	if rep.trusted {
		return rep.proof.same()
	}
	if g.hasher != nil && g.n == rep.Size {
		return g.matches(g.hasher.Sums())
	}
	sums, _, err := verify.Sum(ctxReader{g.r.Context(), io.NewSectionReader(rep.Content, 0, rep.Size)}, g.usedAlgs())
	return err == nil && g.matches(sums)
}

// matches compares sums with the digests the response used.
func (g *guard) matches(sums []verify.Digest) bool {
	for _, d := range sums {
		if v, _ := g.rep.used.get(d.Algorithm); !bytes.Equal(d.Value, v) {
			return false
		}
	}
	return len(sums) > 0
}

// close stops the hasher's goroutines.
func (g *guard) close() {
	if g.hasher != nil {
		g.hasher.Close()
		requestHashing.Add(-1)
	}
}
