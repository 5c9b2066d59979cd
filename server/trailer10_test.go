package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hdig/hdig/verify"
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

// Over HTTP/1.0 partial content above the header limit goes without a
// Content-Digest (no trailer can carry it), so nothing is hashed for it:
// the hashing budget (per client and the server's) must not stay reserved
// for the response's whole length, denying other responses their
// Content-Digest while this one is sent.
func TestNoHashingReservedOverHTTP10(t *testing.T) {
	s, err := New(fixture(t), WithHeaderDigestLimit(1000))
	must(t, err)
	t.Cleanup(func() { s.Close() })
	const size = 4 << 20 // over freeHashMax: a range of it is reserved
	for _, c := range []struct {
		proto string
		major int
		minor int
		want  bool // hashed, so reserved
	}{{"HTTP/1.0", 1, 0, false}, {"HTTP/1.1", 1, 1, true}} {
		r := httptest.NewRequest(http.MethodGet, "/big.bin", nil)
		r.Proto, r.ProtoMajor, r.ProtoMinor = c.proto, c.major, c.minor
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", size/2-1, size))
		w := newBodyWriter(rec, r, s, &Representation{Size: size}, &digestPlan{content: []verify.Algorithm{sha256Alg}})
		w.WriteHeader(http.StatusPartialContent)
		if reserved := s.hashing.used > 0; reserved != c.want || (w.hasher != nil) != c.want {
			t.Errorf("%s: %d bytes of hashing reserved, hasher %v; want reserved and hashed: %v", c.proto, s.hashing.used, w.hasher != nil, c.want)
		}
		w.close()
		if s.hashing.used != 0 {
			t.Errorf("%s: %d bytes still reserved after close", c.proto, s.hashing.used)
		}
	}
}
