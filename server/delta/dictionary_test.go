package delta

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/server"
)

// dictOrigin serves dir with --dictionary /assets/* and the history and
// variants under state; it returns the base URL and a stop function.
func dictOrigin(t *testing.T, dir, state string) (string, func()) {
	t.Helper()
	h, err := New(filepath.Join(state, "history"), 4, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(dir, server.WithDelta(h), server.WithStateDir(state), server.WithDictionary("/assets/*"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	return ts.URL, func() { ts.Close(); srv.Close() }
}

func getWith(t *testing.T, url string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// The history keeps the version offered as a dictionary across a restart
// with the same state directory: after it, the client's dictionary still
// encodes the next version, and the dcz variant made before is reused.
func TestDictionaryRestart(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	v1, v2 := text(3000, 1), text(3000, 2)
	file := writeAsset(t, dir, v1)
	url, stop := dictOrigin(t, dir, state)
	resp, _ := getWith(t, url+"/assets/app.txt")
	if got := resp.Header.Get("Use-As-Dictionary"); !strings.Contains(got, `match="/assets/*"`) {
		stop()
		t.Fatalf("Use-As-Dictionary = %q", got)
	}
	if err := os.WriteFile(file, v2, 0o644); err != nil {
		t.Fatal(err)
	}
	avail := dictionary.FormatAvailableDictionary(dictionary.HashOf(v1))
	_, first := getWith(t, url+"/assets/app.txt", "Accept-Encoding", "dcz", "Available-Dictionary", avail)
	stop()

	url, stop = dictOrigin(t, dir, state)
	defer stop()
	resp, body := getWith(t, url+"/assets/app.txt", "Accept-Encoding", "dcz", "Available-Dictionary", avail)
	if got := resp.Header.Get("Content-Encoding"); got != "dcz" {
		t.Fatalf("after restart: Content-Encoding %q, want dcz", got)
	}
	if string(body) != string(first) {
		t.Fatal("after restart: want the dcz variant made before")
	}
	got, err := dictionary.Decode("dcz", body, v1, dictionary.Limits{})
	if err != nil || string(got) != string(v2) {
		t.Fatalf("after restart: dcz does not decode to v2: %v", err)
	}
	names, _ := filepath.Glob(filepath.Join(state, "variants", "*.dcz-*"))
	if len(names) != 1 {
		t.Fatalf("variants on disk: want one dcz, got %v", names)
	}
}

// A 226 of a file offered as a dictionary keeps its max-age after
// "no-store, im" (RFC 3229 §5.5's example): a client that knows RFC 3229
// ignores that no-store (§10.8.2) and keeps the rebuilt version as its
// dictionary, fresh as long as the 200 would have been.
func TestDictionary226KeepsMaxAge(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	file := writeAsset(t, dir, text(3000, 1))
	url, stop := dictOrigin(t, dir, state)
	defer stop()
	resp, _ := getWith(t, url+"/assets/app.txt", "Accept-Encoding", "identity")
	etag, cc := resp.Header.Get("ETag"), resp.Header.Get("Cache-Control")
	if !strings.HasPrefix(cc, "max-age=") {
		t.Fatalf("200: Cache-Control %q; want a max-age", cc)
	}
	if err := os.WriteFile(file, text(3000, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, _ = getWith(t, url+"/assets/app.txt", "Accept-Encoding", "identity", "A-IM", "vcdiff", "If-None-Match", etag)
	if resp.StatusCode != http.StatusIMUsed || resp.Header.Get("Use-As-Dictionary") == "" {
		t.Fatalf("status %d, Use-As-Dictionary %q; want a 226 offering itself", resp.StatusCode, resp.Header.Get("Use-As-Dictionary"))
	}
	if got := resp.Header.Values("Cache-Control"); len(got) != 1 || got[0] != "no-store, im, "+cc {
		t.Errorf("226: Cache-Control %q; want %q", got, "no-store, im, "+cc)
	}
}

// writeAsset writes body to DIR/assets/app.txt and returns its path.
func writeAsset(t *testing.T, dir string, body []byte) string {
	t.Helper()
	file := filepath.Join(dir, "assets", "app.txt")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
