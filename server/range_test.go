package server

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parts reads a multipart/byteranges body.
func parts(t *testing.T, r *rawResponse) []string {
	t.Helper()
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/byteranges" {
		t.Fatalf("Content-Type = %q", r.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(bytes.NewReader(r.body), params["boundary"])
	var out []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		must(t, err)
		b, err := io.ReadAll(p)
		must(t, err)
		out = append(out, p.Header.Get("Content-Range")+"="+string(b))
	}
}

func TestMultiRange(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=0-1,10-12", "Want-Content-Digest: sha-256=1")
	wantStatus(t, r, http.StatusPartialContent)
	got := parts(t, r)
	want := []string{"bytes 0-1/19={\"", "bytes 10-12/19=\"wo"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("parts = %q, want %q", got, want)
	}
	wantHeader(t, r, "Content-Digest", sfSHA256(r.body))
	wantHeader(t, r, "Repr-Digest", helloRepr)
	if len(r.Trailer) != 0 {
		t.Error("small multipart body should have a header Content-Digest")
	}
}

// Above the header limit, Content-Digest of partial content is a trailer.
func TestLargePartialContentDigestTrailer(t *testing.T) {
	_, ts := start(t, fixture(t), WithHeaderDigestLimit(1000))
	for _, rg := range []string{"bytes=0-99999", "bytes=0-5000,9000-20000"} {
		r := raw(t, ts, "GET", "/data.bin", "Range: "+rg, "Want-Content-Digest: sha-256=1")
		wantStatus(t, r, http.StatusPartialContent)
		wantHeader(t, r, "Content-Digest", "")
		if !bytes.Contains(r.raw, []byte("\r\nTrailer: Content-Digest\r\n")) {
			t.Errorf("%s: no Trailer declaration", rg)
		}
		if got := r.Trailer.Get("Content-Digest"); got != sfSHA256(r.body) {
			t.Errorf("%s: trailer Content-Digest = %q, want %q", rg, got, sfSHA256(r.body))
		}
		wantHeader(t, r, "Repr-Digest", sfSHA256(binData))
	}
	r := raw(t, ts, "GET", "/data.bin", "Range: bytes=0-99999", "Want-Content-Digest: sha-256=1")
	if !bytes.Equal(r.body, binData[:100000]) {
		t.Error("range body differs from the file")
	}
}

func TestRangeNotSatisfiable(t *testing.T) {
	_, ts := start(t, fixture(t))
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=100-200")
	wantStatus(t, r, http.StatusRequestedRangeNotSatisfiable)
	wantHeader(t, r, "Content-Range", "bytes */19")
	wantHeader(t, r, "Content-Type", "application/problem+json")
	wantHeader(t, r, "Repr-Digest", sfSHA256(r.body)) // of the problem, not the file's
	wantHeader(t, r, "ETag", "")
}

func TestIfRange(t *testing.T) {
	_, ts := start(t, fixture(t))
	etag := raw(t, ts, "HEAD", "/hello.json").Header.Get("ETag")
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=0-3", `If-Range: "stale"`)
	wantStatus(t, r, http.StatusOK)
	if string(r.body) != hello {
		t.Errorf("stale If-Range: body = %q, want the whole file", r.body)
	}
	wantHeader(t, r, "Repr-Digest", helloRepr)
	r = raw(t, ts, "GET", "/hello.json", "Range: bytes=0-3", "If-Range: "+etag)
	wantStatus(t, r, http.StatusPartialContent)
	if string(r.body) != hello[:4] {
		t.Errorf("current If-Range: body = %q", r.body)
	}
}

// An If-Range date is not a strong validator here: a file rewritten in
// place with its modification time put back (dd conv=notrunc; touch -d),
// or replaced by cp -p or rsync -t, keeps its Last-Modified while its
// bytes change. A range of the new bytes for the date of the old ones is
// a splice; the date never matches, and the whole file comes (200).
func TestIfRangeDateNotStrong(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir)
	lm := raw(t, ts, "HEAD", "/hello.json").Header.Get("Last-Modified")
	if lm == "" {
		t.Fatal("no Last-Modified")
	}
	editKeepingTimes(t, filepath.Join(dir, "hello.json"), 0, []byte("{ "))
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=0-3", "If-Range: "+lm)
	wantHeader(t, r, "Last-Modified", lm)
	wantStatus(t, r, http.StatusOK)
	if want := "{ " + hello[2:]; string(r.body) != want {
		t.Errorf("body = %q, want %q", r.body, want)
	}
}

func TestNotModified(t *testing.T) {
	_, ts := start(t, fixture(t))
	etag := raw(t, ts, "GET", "/hello.json").Header.Get("ETag")
	r := raw(t, ts, "GET", "/hello.json", "If-None-Match: "+etag, "Want-Content-Digest: sha-256=1")
	wantStatus(t, r, http.StatusNotModified)
	wantHeader(t, r, "ETag", etag)
	wantHeader(t, r, "Repr-Digest", helloRepr)
	wantHeader(t, r, "Content-Digest", emptySHA)
	r = raw(t, ts, "GET", "/hello.json", `If-None-Match: "other", `+etag)
	wantStatus(t, r, http.StatusNotModified)
	r = raw(t, ts, "GET", "/hello.json", `If-None-Match: "other"`)
	wantStatus(t, r, http.StatusOK)
}

func TestHeadMatchesGet(t *testing.T) {
	_, ts := start(t, fixture(t))
	for _, ae := range []string{"identity", "gzip", "br", "zstd"} {
		g := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: "+ae)
		h := raw(t, ts, "HEAD", "/text.txt", "Accept-Encoding: "+ae)
		for _, k := range []string{"Repr-Digest", "ETag", "Content-Length", "Content-Encoding"} {
			if g.Header.Get(k) != h.Header.Get(k) {
				t.Errorf("%s: %s GET %q, HEAD %q", ae, k, g.Header.Get(k), h.Header.Get(k))
			}
		}
	}
}

// TestZeroSuffixRangeUnsatisfiable: a suffix range of length 0 ("-0") is
// not satisfiable (RFC 9110 §14.1.1). http.ServeContent took it as the
// empty range N..N-1 and answered 206 with "Content-Range: bytes 19-18/19",
// which does not parse, so the Content-Digest was that of the whole
// representation over an empty body. Alone it gets 416; beside a
// satisfiable range it is left out.
func TestZeroSuffixRangeUnsatisfiable(t *testing.T) {
	_, ts := start(t, fixture(t))
	for _, rg := range []string{"bytes=-0", "bytes= -00 ", "bytes=-0,-0"} {
		r := raw(t, ts, "GET", "/hello.json", "Range: "+rg, "Want-Content-Digest: sha-256=1")
		wantStatus(t, r, http.StatusRequestedRangeNotSatisfiable)
		wantHeader(t, r, "Content-Range", "bytes */19")
		wantHeader(t, r, "Content-Digest", sfSHA256(r.body)) // of the problem, not the file's
	}
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=0-1,-0", "Want-Content-Digest: sha-256=1")
	wantStatus(t, r, http.StatusPartialContent)
	wantHeader(t, r, "Content-Range", "bytes 0-1/19")
	if string(r.body) != hello[:2] {
		t.Errorf("body = %q, want %q", r.body, hello[:2])
	}
	wantHeader(t, r, "Content-Digest", sfSHA256([]byte(hello[:2])))
}

// TestManyRangesAnsweredWhole: a Range of more than maxServedRanges ranges
// is ignored and the representation sent whole (200), as RFC 9110 §14.2
// allows and Apache's MaxRanges does: each part costs a part header, so
// thousands of one-byte ranges (a 64 KiB request field holds about
// 16,000) would make a response many times the file. Up to the bound,
// the ranges are served.
func TestManyRangesAnsweredWhole(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB
	must(t, os.WriteFile(filepath.Join(dir, "f"), data, 0o644))
	_, ts := start(t, dir)
	ranges := func(n int) string {
		var b strings.Builder
		b.WriteString("bytes=")
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d-%d", 2*i, 2*i)
		}
		return b.String()
	}
	r := raw(t, ts, "GET", "/f", "Range: "+ranges(maxServedRanges))
	wantStatus(t, r, http.StatusPartialContent)
	r = raw(t, ts, "GET", "/f", "Range: "+ranges(maxServedRanges+1), "Want-Content-Digest: sha-256=1")
	wantStatus(t, r, http.StatusOK)
	if !bytes.Equal(r.body, data) {
		t.Errorf("body of %d bytes, want the file's %d", len(r.body), len(data))
	}
	wantHeader(t, r, "Content-Digest", sfSHA256(data))
}

// RFC 9110 §14.1: range units are compared case-insensitively; §14.2: a
// Range of a unit the server does not know is ignored (200, as nginx),
// not refused with 416.
func TestRangeUnit(t *testing.T) {
	_, ts := start(t, fixture(t))
	for _, c := range []struct {
		rg, cr string
		code   int
	}{
		{"BYTES=0-1", "bytes 0-1/19", http.StatusPartialContent},
		{"Bytes=10-18", "bytes 10-18/19", http.StatusPartialContent},
		{"items=0-1", "", http.StatusOK},
		{"0-1", "", http.StatusOK},
	} {
		for _, m := range []string{"GET", "HEAD"} {
			r := raw(t, ts, m, "/hello.json", "Range: "+c.rg)
			if r.StatusCode != c.code || r.Header.Get("Content-Range") != c.cr {
				t.Errorf("%s Range: %s: %d %q, want %d %q", m, c.rg, r.StatusCode, r.Header.Get("Content-Range"), c.code, c.cr)
			}
		}
	}
}

// A 416 names the representation's length (RFC 9110 §15.5.17,
// "bytes */N"), as nginx's does, whatever made the range unsatisfiable:
// http.ServeContent sends it only when the ranges miss the file, not for
// a byte range it cannot read.
func TestRangeNotSatisfiableLength(t *testing.T) {
	_, ts := start(t, fixture(t))
	for _, rg := range []string{"bytes=19-", "bytes=abc", "bytes=10-5", "bytes=-"} {
		for _, m := range []string{"GET", "HEAD"} {
			r := raw(t, ts, m, "/hello.json", "Range: "+rg)
			if r.StatusCode != http.StatusRequestedRangeNotSatisfiable || r.Header.Get("Content-Range") != "bytes */19" {
				t.Errorf("%s Range: %s: %d %q, want 416 %q", m, rg, r.StatusCode, r.Header.Get("Content-Range"), "bytes */19")
			}
		}
	}
}
