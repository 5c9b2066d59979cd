package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// discardWriter is a ResponseWriter that throws the response away, so a
// benchmark measures the handler, not a recorder.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkSmallGet is the handler's share of a GET of a settled 1 KiB
// file, access log included (formatted, then discarded), as hdig serve
// writes it.
func BenchmarkSmallGet(b *testing.B) {
	dir := b.TempDir()
	must(b, os.WriteFile(filepath.Join(dir, "1k.bin"), make([]byte, 1024), 0o644))
	s, err := New(dir, WithSettle(0), WithAccessLog(io.Discard))
	must(b, err)
	defer s.Close()
	h := s.Handler()
	r := httptest.NewRequest(http.MethodGet, "/1k.bin", nil)
	h.ServeHTTP(&discardWriter{h: http.Header{}}, r)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(&discardWriter{h: http.Header{}}, r)
	}
}
