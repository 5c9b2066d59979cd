package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
)

// A --checksum-file URL on another origin than the download's gets none
// of the user's credentials (-u, -H Authorization, -b), asked directly or
// reached by a redirect from the download's origin; the same origin does.
func TestGetChecksumFileURLCredentials(t *testing.T) {
	body := "the app\n"
	sum := sha256.Sum256([]byte(body))
	sums := hex.EncodeToString(sum[:]) + "  app.bin\n"
	var mu sync.Mutex
	seen := map[string]http.Header{}
	record := func(who string, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen[who+r.URL.Path] = r.Header.Clone()
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("other", r)
		io.WriteString(w, sums)
	}))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("origin", r)
		switch r.URL.Path {
		case "/app.bin":
			io.WriteString(w, body)
		case "/SUMS":
			io.WriteString(w, sums)
		case "/moved":
			http.Redirect(w, r, other.URL+"/SUMS-moved", http.StatusFound)
		}
	}))
	defer origin.Close()
	dir := t.TempDir()
	for i, c := range []struct{ sums, who string }{
		{other.URL + "/SUMS", "other/SUMS"},
		{origin.URL + "/moved", "other/SUMS-moved"},
		{origin.URL + "/SUMS", "origin/SUMS"},
	} {
		code, _, errOut := runHdig(t, "get", "--no-cache", "-L", "-u", "user:secret", "-b", "session=s3cret",
			"--checksum-file", c.sums, "-o", filepath.Join(dir, "app"+string(rune('0'+i))), origin.URL+"/app.bin")
		if code != 0 {
			t.Fatalf("get --checksum-file %s: exit %d: %s", c.sums, code, errOut)
		}
		mu.Lock()
		h, ok := seen[c.who]
		mu.Unlock()
		if !ok {
			t.Fatalf("%s was not asked for", c.who)
		}
		creds := h.Get("Authorization") != "" || h.Get("Cookie") != ""
		if want := c.who == "origin/SUMS"; creds != want {
			t.Errorf("--checksum-file %s: %s got Authorization %q, Cookie %q; want credentials %v", c.sums, c.who, h.Get("Authorization"), h.Get("Cookie"), want)
		}
	}
}
