package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/httpfield"
	"github.com/klauspost/compress/gzip"
)

// upload sends a hand-written PUT or POST with a Content-Length body.
func upload(t *testing.T, ts *httptest.Server, method, target string, body []byte, headers ...string) *rawResponse {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: %d\r\n", method, target, len(body))
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return rawBytes(t, ts, method, b.Bytes())
}

// noTemps fails if an upload left a temporary file behind.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if strings.HasPrefix(d.Name(), ".hdig-upload-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	return string(b)
}

func TestPutCreateAndReplace(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	body := []byte("new content\n")
	r := upload(t, ts, "PUT", "/new/dir/f.txt", body, "Content-Digest: "+sfSHA256(body), "Repr-Digest: "+sfSHA256(body))
	wantStatus(t, r, http.StatusCreated)
	wantHeader(t, r, "Location", "/new/dir/f.txt")
	wantHeader(t, r, "Repr-Digest", sfSHA256(body))
	if got := readFile(t, filepath.Join(dir, "new/dir/f.txt")); got != string(body) {
		t.Errorf("stored %q", got)
	}
	g := raw(t, ts, "GET", "/new/dir/f.txt")
	wantHeader(t, r, "ETag", g.Header.Get("ETag"))

	r = upload(t, ts, "PUT", "/hello.json", body, "Repr-Digest: "+sfSHA256(body), "Want-Repr-Digest: sha-512=9")
	wantStatus(t, r, http.StatusNoContent)
	if !strings.HasPrefix(r.Header.Get("Repr-Digest"), "sha-512=:") {
		t.Errorf("Repr-Digest = %q, want sha-512", r.Header.Get("Repr-Digest"))
	}
	g = raw(t, ts, "GET", "/hello.json")
	if string(g.body) != string(body) || g.Header.Get("ETag") != r.Header.Get("ETag") {
		t.Errorf("after replace: body %q, ETag %s vs %s", g.body, g.Header.Get("ETag"), r.Header.Get("ETag"))
	}
	noTemps(t, dir)
}

// A wrong digest leaves the old file byte-identical and nothing else on disk.
func TestPutWrongDigest(t *testing.T) {
	for _, field := range []string{"Content-Digest", "Repr-Digest"} {
		t.Run(field, func(t *testing.T) {
			dir := fixture(t)
			_, ts := start(t, dir, WithWritable())
			body := []byte(`{"hello": "tampered"}` + "\n")
			r := upload(t, ts, "PUT", "/hello.json", body, field+": "+helloRepr, "Content-Type: application/json")
			wantStatus(t, r, http.StatusBadRequest)
			wantHeader(t, r, "Content-Type", "application/problem+json")
			var p problem
			must(t, json.Unmarshal(r.body, &p))
			if p.Field != field || p.Algorithm != "sha-256" || p.Status != 400 || len(p.Mismatches) != 1 {
				t.Errorf("problem = %+v", p)
			}
			if got := readFile(t, filepath.Join(dir, "hello.json")); got != hello {
				t.Errorf("file changed to %q", got)
			}
			noTemps(t, dir)
		})
	}
}

// A digest of an algorithm the server does not know is ignored (RFC 9530
// §2), not an error; a malformed field is refused
// (TestPutMalformedDigestRefused).
func TestPutIgnoredDigests(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	r := upload(t, ts, "PUT", "/x.txt", []byte("x"), "Repr-Digest: blake3=:AAAA:")
	wantStatus(t, r, http.StatusCreated)
}

// Content-Encoding gzip: digests over the gzip bytes, stored decoded.
func TestPutGzip(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(hello))
	zw.Close()
	gz := zb.Bytes()
	r := upload(t, ts, "PUT", "/g.json", gz, "Content-Encoding: gzip", "Content-Digest: "+sfSHA256(gz), "Repr-Digest: "+sfSHA256(gz))
	wantStatus(t, r, http.StatusCreated)
	wantHeader(t, r, "Repr-Digest", helloRepr)
	wantHeader(t, r, "ETag", "")
	if got := readFile(t, filepath.Join(dir, "g.json")); got != hello {
		t.Errorf("stored %q", got)
	}
	// Digests of the decoded bytes do not describe this content.
	r = upload(t, ts, "PUT", "/g.json", gz, "Content-Encoding: gzip", "Content-Digest: "+helloRepr)
	wantStatus(t, r, http.StatusBadRequest)
	r = upload(t, ts, "PUT", "/g.json", []byte("not gzip"), "Content-Encoding: gzip")
	wantStatus(t, r, http.StatusBadRequest)
	r = upload(t, ts, "PUT", "/g.json", []byte("x"), "Content-Encoding: br")
	wantStatus(t, r, http.StatusUnsupportedMediaType)
	// A refused upload to a new path creates no directories either.
	r = upload(t, ts, "PUT", "/fresh/dir/g.json", gz, "Content-Encoding: gzip", "Content-Digest: "+helloRepr)
	wantStatus(t, r, http.StatusBadRequest)
	if _, err := os.Stat(filepath.Join(dir, "fresh")); err == nil {
		t.Error("a refused upload created its directory")
	}
	noTemps(t, dir)
}

func TestUploadLimit(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable(), WithMaxUpload(10))
	r := upload(t, ts, "PUT", "/big.txt", bytes.Repeat([]byte("x"), 11))
	wantStatus(t, r, http.StatusRequestEntityTooLarge)
	req := "PUT /big.txt HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
		"8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n"
	r = rawBytes(t, ts, "PUT", []byte(req))
	wantStatus(t, r, http.StatusRequestEntityTooLarge)
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil {
		t.Error("oversized upload was stored")
	}
	noTemps(t, dir)
}

func TestPost(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	body := []byte(`{"title": "New Title"}` + "\n")
	r := upload(t, ts, "POST", "/sub/", body, "Content-Type: application/json", "Repr-Digest: "+sfSHA256(body))
	wantStatus(t, r, http.StatusCreated)
	loc := r.Header.Get("Location")
	if !strings.HasPrefix(loc, "/sub/") || !strings.HasSuffix(loc, ".json") {
		t.Fatalf("Location = %q", loc)
	}
	if got := readFile(t, filepath.Join(dir, loc)); got != string(body) {
		t.Errorf("stored %q", got)
	}
	wantStatus(t, upload(t, ts, "POST", "/hello.json", body), http.StatusMethodNotAllowed)
	wantStatus(t, upload(t, ts, "POST", "/nowhere/", body), http.StatusNotFound)
}

func TestWriteRefusals(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	for _, target := range []string{"/.secret", "/sub/.env", "/../outside.txt", "/%2e%2e/outside.txt", "/link-dot", "/.hidden/x"} {
		r := upload(t, ts, "PUT", target, []byte("pwned"))
		if r.StatusCode != http.StatusNotFound && r.StatusCode != http.StatusBadRequest {
			t.Errorf("PUT %s: status %d", target, r.StatusCode)
		}
	}
	if readFile(t, filepath.Join(dir, ".secret")) != secret || readFile(t, filepath.Join(dir, "../outside.txt")) != secret {
		t.Error("a refused write changed a file")
	}
	wantStatus(t, upload(t, ts, "PUT", "/sub", []byte("x")), http.StatusConflict)
	wantStatus(t, upload(t, ts, "PUT", "/hello.json", []byte("x"), "If-None-Match: *"), http.StatusPreconditionFailed)
	wantStatus(t, upload(t, ts, "PUT", "/hello.json", []byte("x"), `If-Match: "old"`), http.StatusPreconditionFailed)
	wantStatus(t, upload(t, ts, "PUT", "/hello.json", []byte("x"), "Content-Range: bytes 0-0/1"), http.StatusBadRequest)
	// Present is enough (RFC 9110 §14.5), an empty value too: a partial
	// PUT taken for a whole one would replace the file with a fragment.
	wantStatus(t, upload(t, ts, "PUT", "/hello.json", []byte("x"), "Content-Range:"), http.StatusBadRequest)
	if got := readFile(t, filepath.Join(dir, "hello.json")); got != hello {
		t.Errorf("hello.json replaced by a partial PUT: %q", got)
	}
	etag := raw(t, ts, "HEAD", "/hello.json").Header.Get("ETag")
	wantStatus(t, upload(t, ts, "PUT", "/hello.json", []byte("x"), "If-Match: "+etag), http.StatusNoContent)
	noTemps(t, dir)
}

// TestPutGzipOverLines: Content-Encoding over two lines is one list (RFC
// 9110 §5.3): "gzip" then "gzip" is gzip applied twice, which the server
// does not undo; it must refuse it (415), not gunzip once and store the
// still-gzipped bytes as the file.
func TestPutGzipOverLines(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	gzipOf := func(b []byte) []byte {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(b)
		zw.Close()
		return zb.Bytes()
	}
	twice := gzipOf(gzipOf([]byte(hello)))
	r := upload(t, ts, "PUT", "/g2.json", twice, "Content-Encoding: gzip", "Content-Encoding: gzip", "Content-Digest: "+sfSHA256(twice))
	wantStatus(t, r, http.StatusUnsupportedMediaType)
	if _, err := os.Stat(filepath.Join(dir, "g2.json")); err == nil {
		t.Errorf("stored %q from a body gzipped twice", readFile(t, filepath.Join(dir, "g2.json")))
	}
	noTemps(t, dir)
}

// TestPutIfNoneMatchAllLines: If-None-Match on a PUT is read over all its
// lines and compared weakly (RFC 9110 §13.1.2), and a list too long to read
// fails the precondition: each of these names the current file, so none
// may replace it.
func TestPutIfNoneMatchAllLines(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	etag := raw(t, ts, "HEAD", "/hello.json").Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	long := strings.Repeat(`"other", `, 300) + etag
	for i, hs := range [][]string{
		{`If-None-Match: "other"`, "If-None-Match: *"},
		{`If-None-Match: "other"`, "If-None-Match: " + etag},
		{"If-None-Match: W/" + etag},
		{"If-None-Match: " + long},
	} {
		r := upload(t, ts, "PUT", "/hello.json", []byte("pwned"), hs...)
		if r.StatusCode != http.StatusPreconditionFailed {
			t.Errorf("case %d: PUT with %s: status %d, want 412", i, httpfield.Clip(strings.Join(hs, " / ")), r.StatusCode)
		}
	}
	if got := readFile(t, filepath.Join(dir, "hello.json")); got != hello {
		t.Errorf("hello.json replaced: %q", got)
	}
	// If-Match over two lines: the second names the file.
	r := upload(t, ts, "PUT", "/hello.json", []byte("ok"), `If-Match: "other"`, "If-Match: "+etag)
	wantStatus(t, r, http.StatusNoContent)
	noTemps(t, dir)
}
