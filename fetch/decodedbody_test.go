package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hdig/hdig/httpfield"

	"github.com/hdig/hdig/verify"
)

// A digest announced in the trailer is hashed with every algorithm hdig
// computes (README): with --compressed, an Unencoded-Digest in the
// trailer that does not match the decoded bytes fails, never "not
// computed" (found by review: the decoded side hashed the header's only).
func TestUnencodedTrailerDecoded(t *testing.T) {
	plain := genData(5000, 1)
	enc := gzipped(plain)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "Unencoded-Digest")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Repr-Digest", sha256Field(enc))
		w.WriteHeader(200)
		w.Write(enc)
		w.(http.Flusher).Flush()
		w.Header().Set("Unencoded-Digest", "sha-256=:"+b64Of("sha-256", []byte("not the decoded bytes"))+":")
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	var out bytes.Buffer
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Compressed: true}
	res, err := c.Do(context.Background(), req, &HeldSink{Out: &out})
	if !errors.Is(err, ErrMismatch) || out.Len() > 0 {
		t.Errorf("Do: %v, %d bytes released; want ErrMismatch and none. checks: %v", err, out.Len(), res.Verdict.Checks)
	}
}

// -r with --compressed: a 206 is decoded from the body as its
// Content-Range (or multipart) is checked, so a coded body longer than
// its Content-Range is the protocol error it is without --compressed
// (found by review: the decoder read the connection, and 5000 bytes were
// written for a 10-byte Content-Range).
func TestRangeDecodedKeepsContentRange(t *testing.T) {
	plain := genData(5000, 1)
	enc := gzipped(plain)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Range", "bytes 0-9/100000")
		w.WriteHeader(http.StatusPartialContent) // chunked: no Content-Length
		w.Write(enc)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	rs, err := httpfield.ParseRanges("0-9")
	if err != nil {
		t.Fatal(err)
	}
	for _, compressed := range []bool{false, true} {
		var out bytes.Buffer
		req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Compressed: compressed, Ranges: rs}
		_, err := c.Do(context.Background(), req, &HeldSink{Out: &out})
		if !errors.Is(err, ErrProtocol) || out.Len() > 0 {
			t.Errorf("compressed=%v: Do: %v, %d bytes released for Content-Range 0-9; want ErrProtocol and none", compressed, err, out.Len())
		}
	}
}

// gzipped returns b gzip-encoded.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// With --compressed over HTTP/2 the decoded bytes are not hashed when
// nothing will be compared with them: no Unencoded-Digest sent or declared
// in Trailer, no --expect (found by a second review).
func TestDecodedNotHashedForNothing(t *testing.T) {
	hreq, _ := http.NewRequest("GET", "https://example.test/f", nil)
	resp := &http.Response{StatusCode: 200, ProtoMajor: 2, Header: http.Header{"Content-Encoding": {"gzip"}}, Request: hreq}
	req := &Request{Policy: verify.DefaultPolicy(), Compressed: true}
	if algs := req.decodedAlgorithms(resp, responseFields(resp.Header)); len(algs) > 0 {
		var keys []string
		for _, a := range algs {
			keys = append(keys, a.Key)
		}
		t.Errorf("decoded bytes hashed with %v with no Unencoded-Digest declared or sent", keys)
	}
}
