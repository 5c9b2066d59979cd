package server

import (
	"net/http"
	"testing"
)

// An HTTP/1.0 response has no chunked coding, so no trailer: partial
// content above the header limit keeps its Content-Length (the client's
// only way to tell a cut body from a whole one) and goes without a
// Content-Digest, rather than announcing a trailer that cannot come over
// a body only the connection's close delimits.
func TestNoTrailerOverHTTP10(t *testing.T) {
	_, ts := start(t, fixture(t), WithHeaderDigestLimit(1000))
	for _, rg := range []string{"bytes=0-4999", "bytes=0-2999,4000-6999"} {
		r := rawBytes(t, ts, "GET", []byte("GET /data.bin HTTP/1.0\r\nRange: "+rg+"\r\nWant-Content-Digest: sha-256\r\n\r\n"))
		wantStatus(t, r, http.StatusPartialContent)
		if r.Header.Get("Trailer") != "" || r.ContentLength != int64(len(r.body)) || r.ContentLength < 0 {
			t.Errorf("Range %s over HTTP/1.0: Trailer %q, Content-Length %d, body %d bytes", rg, r.Header.Get("Trailer"), r.ContentLength, len(r.body))
		}
	}
}
