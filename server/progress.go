package server

import (
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// progressChunk is the most a single write to the connection carries
// under one deadline: a client that reads progressChunk bytes per half
// write timeout (128 KiB in 30 s by default) keeps its connection.
const progressChunk = 128 << 10

// progress gives every response a write deadline that moves forward with
// each write: a client that takes no bytes for the write timeout is
// dropped, one that reads slowly but steadily is not. http.Server's
// WriteTimeout (the same value) covers what is written after the handler
// returns.
func (s *Server) progress(next http.Handler) http.Handler {
	d := s.cfg.writeTimeout
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &progressBody{ReadCloser: r.Body, rc: http.NewResponseController(w), timeout: d}
		}
		next.ServeHTTP(&progressWriter{ResponseWriter: w, timeout: d, extended: time.Now()}, r)
	})
}

// progressBody gives the reads of a request's content a deadline that
// moves forward as they go, as progressWriter does for writes: the
// server's ReadHeaderTimeout ends with the head, and an upload whose
// content stops coming would otherwise hold its connection (and, under
// --max-conns, its slot: it is neither idle nor stalled in a write) for
// good. Each read starts with at least half the timeout ahead of it.
type progressBody struct {
	io.ReadCloser
	rc       *http.ResponseController
	timeout  time.Duration
	extended time.Time // when the deadline was last set; zero: never
}

func (b *progressBody) Read(p []byte) (int, error) {
	if now := time.Now(); now.Sub(b.extended) >= b.timeout/2 {
		b.extended = now
		b.rc.SetReadDeadline(now.Add(b.timeout))
	}
	return b.ReadCloser.Read(p)
}

// progressWriter extends the connection's write deadline before each
// write of at most progressChunk bytes, once half the timeout has passed
// since it was last set (http.Server sets it when the request was read):
// every write starts with at least half the timeout ahead of it, and a
// small response costs no deadline update at all.
type progressWriter struct {
	http.ResponseWriter
	rc       *http.ResponseController
	timeout  time.Duration
	extended time.Time // when the deadline was last set
}

// extend moves the deadline; writers without one (tests' recorders) are
// left alone.
func (w *progressWriter) extend() {
	now := time.Now()
	if now.Sub(w.extended) < w.timeout/2 {
		return
	}
	w.extended = now
	if w.rc == nil {
		w.rc = http.NewResponseController(w.ResponseWriter)
	}
	w.rc.SetWriteDeadline(now.Add(w.timeout))
}

func (w *progressWriter) WriteHeader(code int) {
	w.extend()
	w.ResponseWriter.WriteHeader(code)
}

func (w *progressWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		c := p[:min(len(p), progressChunk)]
		w.extend()
		m, err := w.ResponseWriter.Write(c)
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}

// ReadFrom keeps the connection's sendfile path. A file larger than a
// chunk goes in one sendfile under a watch (watchFile); another source
// is cut into chunks, one per deadline.
func (w *progressWriter) ReadFrom(src io.Reader) (int64, error) {
	rf, ok := w.ResponseWriter.(io.ReaderFrom)
	if !ok {
		return io.Copy(writerOnly{w}, src)
	}
	if lr, isLimited := src.(*io.LimitedReader); isLimited && lr.N > progressChunk {
		if f, isFile := lr.R.(*os.File); isFile {
			if n, err, ok := w.watchFile(rf, lr, f); ok {
				return n, err
			}
		}
	}
	return readFromChunks(rf, src, progressChunk, w.extend)
}

// readFromChunks copies src to rf in ReadFrom calls of at most chunk
// bytes, calling before (if not nil) ahead of each. A LimitedReader's
// reader goes on in a LimitedReader of its own, so that rf still sees a
// file (sendfile); the LimitedReader's N is kept up to date.
func readFromChunks(rf io.ReaderFrom, src io.Reader, chunk int64, before func()) (int64, error) {
	inner, left := src, int64(-1)
	lr, limited := src.(*io.LimitedReader)
	if limited {
		inner, left = lr.R, lr.N
	}
	var total int64
	for left != 0 {
		n := chunk
		if left > 0 {
			n = min(n, left)
		}
		if before != nil {
			before()
		}
		m, err := rf.ReadFrom(&io.LimitedReader{R: inner, N: n})
		total += m
		if left > 0 {
			left -= m
		}
		if limited {
			lr.N = left
		}
		if err != nil || m < n {
			return total, err
		}
	}
	return total, nil
}

// watchFile sends lr (bytes of f from its offset) in one ReadFrom, which
// the kernel's sendfile copies without returning to Go between chunks,
// while a timer looks every quarter of the timeout at how far it got:
// sendfile moves f's offset. After each progressChunk bytes taken the
// deadline moves forward, as it would before a chunk of its own: a client
// that reads progressChunk bytes per half timeout keeps its connection,
// one that stops is dropped within the timeout and a quarter. ok is false
// when f's offset cannot be read (nothing was sent).
func (w *progressWriter) watchFile(rf io.ReaderFrom, lr *io.LimitedReader, f *os.File) (int64, error, bool) {
	start, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, nil, false
	}
	if w.rc == nil {
		w.rc = http.NewResponseController(w.ResponseWriter)
	}
	var mu sync.Mutex
	last, setAt, done := start, time.Now(), false
	w.rc.SetWriteDeadline(setAt.Add(w.timeout))
	var t *time.Timer
	check := func() {
		pos, err := f.Seek(0, io.SeekCurrent)
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		if err == nil && pos-last >= progressChunk {
			last, setAt = pos, time.Now()
			w.rc.SetWriteDeadline(setAt.Add(w.timeout))
		}
		watchTicks.Add(1)
		t.Reset(w.timeout / 4)
	}
	mu.Lock()
	t = time.AfterFunc(w.timeout/4, check)
	mu.Unlock()
	n, err := rf.ReadFrom(lr)
	mu.Lock()
	done = true
	t.Stop()
	w.extended = setAt
	mu.Unlock()
	return n, err, true
}

// watchTicks counts the watch's looks at a file's offset (tests).
var watchTicks atomic.Int64

func (w *progressWriter) Flush() {
	w.extend()
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *progressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
