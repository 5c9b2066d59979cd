package server

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
)

// TestMultipartLeadingCRLF: a multipart/byteranges body starts with CRLF
// before the first boundary, as nginx sends it (RFC 2046 §5.1.1 lets the
// first delimiter carry it); zsync 0.6.2 loops forever without it. The
// CRLF is part of the content: Content-Length and Content-Digest count it.
func TestMultipartLeadingCRLF(t *testing.T) {
	_, ts := start(t, fixture(t))
	for _, extra := range [][]string{nil, {"Want-Content-Digest: sha-256"}} {
		hs := append([]string{"Range: bytes=0-9,100-199,5000-5099"}, extra...)
		r := raw(t, ts, "GET", "/data.bin", hs...)
		wantStatus(t, r, http.StatusPartialContent)
		if !bytes.HasPrefix(r.body, []byte("\r\n--")) {
			t.Errorf("body starts %q, want CRLF then the boundary", r.body[:min(len(r.body), 8)])
		}
		if n, _ := strconv.Atoi(r.Header.Get("Content-Length")); n != len(r.body) {
			t.Errorf("Content-Length %s, body %d bytes", r.Header.Get("Content-Length"), len(r.body))
		}
		if extra != nil {
			wantHeader(t, r, "Content-Digest", sfSHA256(r.body))
		}
		if got := parts(t, r); len(got) != 3 || got[1] != "bytes 100-199/1048576="+string(binData[100:200]) {
			t.Errorf("parts = %d, want 3 with the right bytes", len(got))
		}
		h := raw(t, ts, "HEAD", "/data.bin", hs...)
		if h.Header.Get("Content-Length") != r.Header.Get("Content-Length") {
			t.Errorf("HEAD Content-Length %s, GET %s", h.Header.Get("Content-Length"), r.Header.Get("Content-Length"))
		}
	}
}
