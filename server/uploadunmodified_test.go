package server

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A PUT's If-Unmodified-Since is a precondition the origin MUST evaluate
// when there is no If-Match (RFC 9110 §13.2.2, step 2): a client that
// holds a version by its Last-Modified and writes it back must not
// overwrite a newer one (a lost update). A file changed after the date
// answers 412 and stays; one not changed since, or a date the field does
// not hold, lets the write through; If-Match, when present, decides alone.
func TestPutIfUnmodifiedSince(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	p := filepath.Join(dir, "hello.json")
	mod := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	must(t, os.Chtimes(p, mod, mod))
	before := mod.Add(-time.Hour).Format(http.TimeFormat)
	r := upload(t, ts, "PUT", "/hello.json", []byte("lost"), "If-Unmodified-Since: "+before)
	wantStatus(t, r, http.StatusPreconditionFailed)
	if got := readFile(t, p); got != hello {
		t.Fatalf("after a 412 the file holds %q", got)
	}
	etag := raw(t, ts, "GET", "/hello.json").Header.Get("ETag")
	wantStatus(t, upload(t, ts, "PUT", "/hello.json", []byte("by etag"), "If-Match: "+etag, "If-Unmodified-Since: "+before), http.StatusNoContent)
	must(t, os.Chtimes(p, mod, mod))
	wantStatus(t, upload(t, ts, "PUT", "/hello.json", []byte("not a date"), "If-Unmodified-Since: yesterday"), http.StatusNoContent)
	must(t, os.Chtimes(p, mod, mod))
	wantStatus(t, upload(t, ts, "PUT", "/hello.json", []byte("same second"), "If-Unmodified-Since: "+mod.Format(http.TimeFormat)), http.StatusNoContent)
	if got := readFile(t, p); got != "same second" {
		t.Errorf("file holds %q", got)
	}
	noTemps(t, dir)
}
