package browsertest_test

import (
	"net/http"
	"sync"
)

// exchange is what a recorder saw of one request and its response.
type exchange struct {
	Method, Path string
	Request      http.Header
	Status       int
	Response     http.Header
	Bytes        int64 // body bytes written
}

// recorder passes requests to next and remembers each exchange.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	seen []exchange
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := &recordingWriter{ResponseWriter: w}
	rec.next.ServeHTTP(rw, r)
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.seen = append(rec.seen, exchange{Method: r.Method, Path: r.URL.Path, Request: r.Header.Clone(),
		Status: rw.status, Response: w.Header().Clone(), Bytes: rw.n})
}

// last returns the last exchange for path.
func (rec *recorder) last(path string) (exchange, bool) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i := len(rec.seen) - 1; i >= 0; i-- {
		if rec.seen[i].Path == path {
			return rec.seen[i], true
		}
	}
	return exchange{}, false
}

type recordingWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
