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
		lw := &logWriter{ResponseWriter: w}
		start := time.Now()
		aborted := true
		defer func() {
			st := lw.status
			if st == 0 {
				st = http.StatusOK
			}
			s.cfg.logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("method", r.Method),
				slog.String("path", r.URL.Path), slog.Int("status", st), slog.Int64("bytes", lw.bytes),
				slog.Duration("dur", time.Since(start).Round(time.Microsecond)),
				slog.String("remote", r.RemoteAddr), slog.Bool("aborted", aborted))
		}()
		next.ServeHTTP(lw, r)
		aborted = false
	})
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
