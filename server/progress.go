package server

import (
	"io"
	"net/http"
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
		next.ServeHTTP(&progressWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: d,
			extended: time.Now()}, r)
	})
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

// ReadFrom keeps the connection's sendfile path, one chunk per deadline.
// A *io.LimitedReader around a file (what http.ServeContent passes) is
// cut into chunks of the same form, which sendfile still recognises.
func (w *progressWriter) ReadFrom(src io.Reader) (int64, error) {
	rf, ok := w.ResponseWriter.(io.ReaderFrom)
	if !ok {
		return io.Copy(writerOnly{w}, src)
	}
	inner, left := src, int64(-1)
	lr, limited := src.(*io.LimitedReader)
	if limited {
		inner, left = lr.R, lr.N
	}
	var total int64
	for left != 0 {
		n := int64(progressChunk)
		if left > 0 {
			n = min(n, left)
		}
		w.extend()
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

func (w *progressWriter) Flush() {
	w.extend()
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *progressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
