package server

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestUploadTrailerDigestDotPath: a PUT whose path has dot or empty
// segments ("//", "/sub/../") is stored under the name they resolve to,
// and its trailer digest is checked as for the plain name. The
// normalised request was a clone whose Trailer net/http never fills (it
// fills the original's), so a wrong trailer digest went unread: the
// bytes were stored, 204, as if verified.
func TestUploadTrailerDigestDotPath(t *testing.T) {
	body := []byte(`{"hello": "tampered"}` + "\n")
	for _, target := range []string{"//hello.json", "/sub/../hello.json", "/./hello.json"} {
		for _, declare := range []string{"Content-Digest", ""} {
			t.Run(target+" "+declare, func(t *testing.T) {
				dir := fixture(t)
				_, ts := start(t, dir, WithWritable())
				req := chunkedPut(body, declare, "Content-Digest: "+helloRepr)
				req = bytes.Replace(req, []byte("PUT /hello.json "), []byte("PUT "+target+" "), 1)
				r := rawBytes(t, ts, "PUT", req)
				if r.StatusCode != 400 {
					t.Errorf("status %d, want 400: %s", r.StatusCode, r.body)
				}
				if got := readFile(t, filepath.Join(dir, "hello.json")); got != hello {
					t.Errorf("hello.json now %q, want it unchanged", got)
				}
				noTemps(t, dir)
			})
		}
	}
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	req := chunkedPut(body, "Content-Digest", "Content-Digest: "+sfSHA256(body))
	req = bytes.Replace(req, []byte("PUT /hello.json "), []byte("PUT /sub/..//hello.json "), 1)
	if r := rawBytes(t, ts, "PUT", req); r.StatusCode != 204 {
		t.Errorf("right trailer digest: status %d, want 204: %s", r.StatusCode, r.body)
	}
	if got := readFile(t, filepath.Join(dir, "hello.json")); got != string(body) {
		t.Errorf("hello.json now %q, want the upload", got)
	}
}
