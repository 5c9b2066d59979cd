package delta

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/server"
)

// A kept version whose blob has a second name (a hard link, as a snapshot
// by links or a deduplicating tool makes) is refused as a base: a write
// through the other name would change it. The refusal was silent on the
// dictionary path (no dcb or dcz ever came, and nothing said why); it is
// logged once for the blob, however many requests meet it.
func TestHardLinkedBlobLoggedOnce(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	var logged bytes.Buffer
	h, err := New(filepath.Join(state, "history"), 4, 0, slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(dir, server.WithDelta(h), server.WithStateDir(state), server.WithDictionary("/assets/*"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer func() { ts.Close(); srv.Close() }()
	v1 := text(3000, 1)
	file := writeAsset(t, dir, v1)
	getWith(t, ts.URL+"/assets/app.txt")
	blobs, _ := filepath.Glob(filepath.Join(state, "history", "blobs", "*"))
	if len(blobs) != 1 {
		t.Fatalf("blobs: %v", blobs)
	}
	if err := os.Link(blobs[0], filepath.Join(t.TempDir(), "snapshot")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, text(3000, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	avail := dictionary.FormatAvailableDictionary(dictionary.HashOf(v1))
	for range 3 {
		resp, _ := getWith(t, ts.URL+"/assets/app.txt", "Accept-Encoding", "dcz", "Available-Dictionary", avail)
		if got := resp.Header.Get("Content-Encoding"); got != "" {
			t.Fatalf("Content-Encoding %q from a refused dictionary", got)
		}
	}
	if n := strings.Count(logged.String(), filepath.Base(blobs[0])); n != 1 {
		t.Errorf("the refused blob is named %d times in the log, want once:\n%s", n, logged.String())
	}
}
