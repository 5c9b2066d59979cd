package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestGetAsksForTrailers: a plain GET says it accepts trailers (TE:
// trailers), so an origin that has not hashed a file yet can stream it
// and send Repr-Digest after the body (hdig serve does); the trailer
// digest is verified. A range request does not ask (no origin streams a
// part with trailers).
func TestGetAsksForTrailers(t *testing.T) {
	body := []byte("streamed before it was hashed\n")
	sums, _, _ := verify.Sum(bytes.NewReader(body), []verify.Algorithm{mustAlg(t, "sha-256")})
	var te []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		te = append(te, r.Header.Get("TE"))
		if r.Header.Get("TE") != "trailers" {
			w.Header().Set("Repr-Digest", verify.FormatDigests(sums))
			w.Write(body)
			return
		}
		w.Header().Set("Trailer", "Repr-Digest")
		w.Write(body)
		w.Header().Set("Repr-Digest", verify.FormatDigests(sums))
	}))
	defer srv.Close()
	c, err := NewClient(Options{Timeout: testStall})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	req := &Request{URL: srv.URL + "/f", Header: http.Header{}, Policy: verify.DefaultPolicy()}
	res, err := c.Get(context.Background(), req, &HeldSink{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if len(te) != 1 || te[0] != "trailers" {
		t.Fatalf("TE sent: %q, want trailers", te)
	}
	if !res.Verdict.Verified(verify.ReprDigest) || out.String() != string(body) {
		t.Errorf("verdict %+v, body %q", res.Verdict, out.String())
	}
	ranged := &Request{URL: srv.URL + "/f", Header: http.Header{"Range": {"bytes=0-3"}}, Policy: verify.DefaultPolicy()}
	c.Get(context.Background(), ranged, DiscardSink{})
	if len(te) != 2 || te[1] != "" {
		t.Errorf("a range request sent TE %q", te[1:])
	}
}
