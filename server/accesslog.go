package server

import (
	"io"
	"log/slog"
	"net/http"
	"time"
)

// accessLog logs one line per request at Info level: method, path,
// status, bytes of content sent, duration, client address. A response
// abandoned on purpose (WithTruncatedBody) is logged as "aborted".
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.begun.Add(1)
		lw := &logWriter{ResponseWriter: w}
		start := time.Now()
		aborted := true
		defer func() { s.logRequest(r, lw, start, aborted) }()
		next.ServeHTTP(lw, r)
		aborted = false
	})
}

// logRequest writes the access log's line for r: by hand to the
// WithAccessLog writer when there is one, else through the logger.
func (s *Server) logRequest(r *http.Request, lw *logWriter, start time.Time, aborted bool) {
	st := lw.status
	if st == 0 {
		st = http.StatusOK
	}
	if out := s.cfg.accessOut; out != nil {
		end := time.Now()
		l := accessLine{method: r.Method, path: r.URL.Path, remote: r.RemoteAddr, status: st,
			bytes: lw.bytes, dur: end.Sub(start).Round(time.Microsecond), aborted: aborted}
		writeAccessLine(out, end, &l)
		return
	}
	s.cfg.logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method),
		slog.String("path", r.URL.Path), slog.Int("status", st), slog.Int64("bytes", lw.bytes),
		slog.Duration("dur", time.Since(start).Round(time.Microsecond)),
		slog.String("remote", r.RemoteAddr), slog.Bool("aborted", aborted))
}

// logWriter records the status and counts the bytes; ReadFrom keeps the
// sendfile path of the connection.
type logWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *logWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *logWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *logWriter) ReadFrom(src io.Reader) (int64, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(writerOnly{w.ResponseWriter}, src)
	}
	w.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *logWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
