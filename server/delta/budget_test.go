package delta

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/server"
)

// TestHistoryBudget: versions of many files share one byte budget; the
// oldest are forgotten first, and a delta from a forgotten one is a 200.
func TestHistoryBudget(t *testing.T) {
	dir := t.TempDir()
	h, err := New(filepath.Join(t.TempDir(), "state"), DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxTotal(25 << 10) // room for two of the three 10 KiB files
	srv, err := server.New(dir, server.WithDelta(h))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer func() { ts.Close(); srv.Close() }()
	o := &origin{t: t, dir: dir}
	etags := map[string]string{}
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		body := bytes.Repeat([]byte(name+" line\n"), 10<<10/len(name+" line\n"))
		os.WriteFile(filepath.Join(dir, name), body, 0o644)
		o.url = ts.URL + "/" + name
		resp, _ := o.get(nil)
		etags[name] = resp.Header.Get("ETag")
	}
	blobs, _ := filepath.Glob(filepath.Join(h.dir, "blobs", "*"))
	var total int64
	for _, b := range blobs {
		fi, _ := os.Stat(b)
		total += fi.Size()
	}
	if len(blobs) != 2 || total > 25<<10 {
		t.Fatalf("%d blobs, %d bytes kept; want 2 within 25 KiB", len(blobs), total)
	}
	for _, tc := range []struct {
		name string
		want int
	}{{"c.txt", http.StatusIMUsed}, {"a.txt", http.StatusOK}} {
		name, want := tc.name, tc.want
		os.WriteFile(filepath.Join(dir, name), append(bytes.Repeat([]byte(name+" line\n"), 10<<10/len(name+" line\n")), "more\n"...), 0o644)
		o.url = ts.URL + "/" + name
		resp, _ := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": etags[name]})
		if resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", name, resp.StatusCode, want)
		}
	}
}
