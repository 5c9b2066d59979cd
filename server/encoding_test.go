package server

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func decode(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch enc {
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		must(t, err)
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b))
		must(t, err)
		defer zr.Close()
		r = zr
	}
	out, err := io.ReadAll(r)
	must(t, err)
	return out
}

// Each coding's Repr-Digest is the digest of the encoded bytes, differs
// from identity's, and its ETag is its own.
func TestEncodings(t *testing.T) {
	_, ts := start(t, fixture(t))
	id := raw(t, ts, "GET", "/text.txt", "Want-Content-Digest: sha-256=1")
	wantHeader(t, id, "Vary", "Accept-Encoding")
	wantHeader(t, id, "Repr-Digest", sfSHA256([]byte(text)))
	for _, enc := range []string{"gzip", "br", "zstd"} {
		t.Run(enc, func(t *testing.T) {
			r := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: "+enc, "Want-Content-Digest: sha-256=1")
			wantStatus(t, r, http.StatusOK)
			wantHeader(t, r, "Content-Encoding", enc)
			wantHeader(t, r, "Vary", "Accept-Encoding")
			if r.ContentLength != int64(len(r.body)) || len(r.body) >= len(text) {
				t.Errorf("Content-Length %d, body %d bytes", r.ContentLength, len(r.body))
			}
			wantHeader(t, r, "Repr-Digest", sfSHA256(r.body))
			wantHeader(t, r, "Content-Digest", sfSHA256(r.body))
			if r.Header.Get("Repr-Digest") == id.Header.Get("Repr-Digest") {
				t.Error("Repr-Digest equals identity's")
			}
			if r.Header.Get("ETag") == id.Header.Get("ETag") {
				t.Error("ETag equals identity's")
			}
			if got := decode(t, enc, r.body); string(got) != text {
				t.Error("decoded body differs from the file")
			}
			// Ranges apply to the encoded bytes.
			p := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: "+enc, "Range: bytes=0-9", "Want-Content-Digest: sha-256=1")
			wantStatus(t, p, http.StatusPartialContent)
			wantHeader(t, p, "Content-Encoding", enc)
			if !bytes.Equal(p.body, r.body[:10]) {
				t.Errorf("range = %x, want %x", p.body, r.body[:10])
			}
			wantHeader(t, p, "Content-Digest", sfSHA256(r.body[:10]))
			wantHeader(t, p, "Repr-Digest", sfSHA256(r.body))
			// If-None-Match with the variant's ETag.
			nm := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: "+enc, "If-None-Match: "+r.Header.Get("ETag"))
			wantStatus(t, nm, http.StatusNotModified)
			wantHeader(t, nm, "Repr-Digest", sfSHA256(r.body))
		})
	}
}

func TestNegotiate(t *testing.T) {
	tests := map[string]string{
		"":                              "",
		"gzip":                          "gzip",
		"gzip, br":                      "br",
		"gzip;q=1, br;q=0.5, zstd":      "zstd",
		"gzip;q=1, br;q=0.5":            "gzip",
		"zstd;q=0.9, br;q=0":            "zstd",
		"*":                             "br",
		"*;q=0.5, gzip;q=0.8":           "gzip",
		"br;q=0, zstd;q=0, gzip;q=0, *": "",
		"x-gzip":                        "gzip",
		"identity":                      "",
		"gzip;q=nonsense":               "",
		// RFC 9110 §12.4.2 qvalues, read by httpfield.QValue as for A-IM:
		"gzip;q=0.0001":  "",
		"gzip;q=1e-1":    "",
		"br;q=NaN, gzip": "gzip",
		"br;q=2, gzip":   "gzip",
	}
	for ae, want := range tests {
		h := http.Header{}
		if ae != "" {
			h.Set("Accept-Encoding", ae)
		}
		if got := negotiate(h); got != want {
			t.Errorf("negotiate(%q) = %q, want %q", ae, got, want)
		}
	}
}

// Binary types are not compressed; multi-range on a variant gets 200.
func TestEncodingLimits(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "HEAD", "/data.bin", "Accept-Encoding: gzip")
	wantHeader(t, r, "Content-Encoding", "")
	wantHeader(t, r, "Vary", "")
	r = raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip", "Range: bytes=0-1,5-6")
	wantStatus(t, r, http.StatusOK)
	wantHeader(t, r, "Content-Encoding", "gzip")
	_, ts2 := start(t, fixture(t), WithCompressLimit(100))
	r = raw(t, ts2, "HEAD", "/text.txt", "Accept-Encoding: gzip")
	wantHeader(t, r, "Content-Encoding", "")
}

// With a state directory, variants are files named by content; a second
// server reuses them.
func TestStateDirVariants(t *testing.T) {
	dir, state := fixture(t), t.TempDir()
	_, ts := start(t, dir, WithStateDir(state))
	a := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: br")
	_, ts2 := start(t, dir, WithStateDir(state))
	b := raw(t, ts2, "GET", "/text.txt", "Accept-Encoding: br")
	if a.Header.Get("ETag") != b.Header.Get("ETag") || !bytes.Equal(a.body, b.body) {
		t.Error("variant differs between servers")
	}
	wantHeader(t, b, "Repr-Digest", sfSHA256(b.body))
}
