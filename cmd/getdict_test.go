package cmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/dictionary"
)

// dictSite serves /app/v1.js and /app/v2.js as an RFC 9842 origin: each
// offers itself as a dictionary for /app/*, and a request naming v1 in
// Available-Dictionary with dcz accepted gets v2 encoded against it.
func dictSite(t *testing.T) (url string, v1, v2 []byte) {
	v1 = []byte(strings.Repeat("const version = 1; export default version;\n", 300))
	v2 = []byte(strings.Repeat("const version = 2; export default version;\n", 310))
	var mu sync.Mutex
	held := map[dictionary.Hash][]byte{}
	repr := func(b []byte) string {
		s := sha256.Sum256(b)
		return "sha-256=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := map[string][]byte{"/app/v1.js": v1, "/app/v2.js": v2}[r.URL.Path]
		if body == nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Use-As-Dictionary", `match="/app/*", id="`+r.URL.Path+`"`)
		h.Set("Cache-Control", "max-age=600")
		h.Set("Vary", "accept-encoding, available-dictionary")
		h.Set("Unencoded-Digest", repr(body))
		avail, _ := dictionary.ParseAvailableDictionary(r.Header.Values("Available-Dictionary"))
		mu.Lock()
		dict, ok := held[avail]
		held[dictionary.HashOf(body)] = body
		mu.Unlock()
		if ok && strings.Contains(r.Header.Get("Accept-Encoding"), "dcz") {
			enc, err := dictionary.EncodeDCZ(body, dict)
			if err != nil {
				t.Error(err)
			}
			h.Set("Content-Encoding", "dcz")
			body = enc
		}
		h.Set("Repr-Digest", repr(body))
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, v1, v2
}

// hdig get stores v1 as a dictionary and fetches v2 as dcz against it:
// strategy dictionary in --json (with the dictionary named) and in the
// verdict line; --strategy full and --no-dictionary fetch it plainly.
func TestGetDictionary(t *testing.T) {
	url, v1, v2 := dictSite(t)
	cacheDir, work := t.TempDir(), t.TempDir()
	get := func(name string, args ...string) (jsonVerdict, string) {
		t.Helper()
		out := filepath.Join(work, name)
		args = append([]string{"get", "--cache-dir", cacheDir, "-o", out}, args...)
		code, stdout, stderr := runHdig(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		want := v2
		if strings.HasSuffix(args[len(args)-1], "v1.js") {
			want = v1
		}
		if b, _ := os.ReadFile(out); !bytes.Equal(b, want) {
			t.Fatalf("%v: the file differs", args)
		}
		var v jsonVerdict
		if strings.Contains(strings.Join(args, " "), "--json") {
			v = zsyncVerdict(t, stdout)
		}
		return v, stderr
	}
	if v, _ := get("v1", "--json", url+"/app/v1.js"); v.Transfer.Strategy != "full" {
		t.Fatalf("v1: strategy %s", v.Transfer.Strategy)
	}
	v, _ := get("v2", "--json", url+"/app/v2.js")
	d := v.Transfer.Dictionary
	if v.Transfer.Strategy != "dictionary" || d == nil || d.Coding != "dcz" || d.URL != url+"/app/v1.js" || d.Size != int64(len(v1)) ||
		v.Transfer.Received*4 > v.Bytes || v.Verdict != "verified" {
		t.Fatalf("v2: verdict %s, transfer %+v (dictionary %+v), %d bytes", v.Verdict, v.Transfer, d, v.Bytes)
	}
	_, stderr := get("v2-text", url+"/app/v2.js")
	t.Log(stderr)
	if !strings.Contains(stderr, "dcz with dictionary "+url+"/app/v2.js") || !strings.Contains(stderr, "saved") {
		t.Errorf("verdict line %q; want the dcz, the dictionary (now v2 itself) and the saving", stderr)
	}
	for _, flag := range []string{"--strategy=full", "--no-dictionary", "--strategy=delta"} {
		if v, _ := get("v2-"+flag, "--json", flag, url+"/app/v2.js"); v.Transfer.Strategy == "dictionary" {
			t.Errorf("%s: strategy %s, want no dictionary", flag, v.Transfer.Strategy)
		}
	}
	if v, _ := get("v2-dict", "--json", "--strategy=dictionary", url+"/app/v2.js"); v.Transfer.Strategy != "dictionary" {
		t.Errorf("--strategy=dictionary: strategy %s", v.Transfer.Strategy)
	}
	code, stdout, stderr := runHdig(t, "cache", "ls", "--dictionaries", "--cache-dir", cacheDir)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != ExitOK || len(lines) != 2 || !strings.HasPrefix(lines[0], url+"/app/v2.js\t/app/*\t/app/v2.js\t") || !strings.Contains(stderr, "2 dictionaries") {
		t.Errorf("cache ls --dictionaries = %d, %q, %q; want v2 then v1", code, stdout, stderr)
	}
}

// TestGetDictionaryFromHdigServe: hdig get against hdig serve
// --dictionary: v1 is stored as a dictionary (the response is fresh for
// --dictionary-max-age), and the next version comes as dcb or dcz against
// it, verified by Repr-Digest and Unencoded-Digest.
func TestGetDictionaryFromHdigServe(t *testing.T) {
	site, state, cacheDir, work := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(site, "assets"), 0o755)
	asset := filepath.Join(site, "assets", "app.js")
	v1, v2 := versionText(1), versionText(2)
	os.WriteFile(asset, v1, 0o644)
	base := startServe(t, site, "--dictionary", "/assets/*", "--state-dir", state)
	if code, _, stderr := runHdig(t, "get", "--cache-dir", cacheDir, "-o", filepath.Join(work, "v1"), base+"assets/app.js"); code != 0 || strings.Contains(stderr, "not stored") {
		t.Fatalf("v1: exit %d: %s", code, stderr)
	}
	os.WriteFile(asset, v2, 0o644)
	out := filepath.Join(work, "v2")
	code, stdout, stderr := runHdig(t, "get", "--json", "--strategy", "dictionary", "--cache-dir", cacheDir, "-o", out, base+"assets/app.js")
	if code != 0 {
		t.Fatalf("v2: exit %d: %s", code, stderr)
	}
	v := zsyncVerdict(t, stdout)
	if v.Transfer.Strategy != "dictionary" || v.Transfer.Dictionary == nil || v.Transfer.Received*4 > v.Bytes {
		t.Errorf("v2: transfer %+v: %s", v.Transfer, stderr)
	}
	assertFile(t, out, string(v2))
}
