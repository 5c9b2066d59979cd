package cmd

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/servertest"
)

// TestGetMirrors: hdig serve is the origin (advertising a good mirror with
// --duplicate, itself an hdig serve) and --mirror names a liar that flips a
// byte in every piece. The file is the origin's, the verdict line and the
// JSON name the liar, and the good mirror came from the Link.
func TestGetMirrors(t *testing.T) {
	data := make([]byte, 5<<20)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	dir := func() string {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, "f"), data, 0o644)
		return d
	}
	// The origin and the good mirror answer ranges once the liar was
	// asked for one, so the liar serves a piece however the goroutines
	// run (the plan has more pieces than the origin and the good mirror
	// have connections).
	asked := make(chan struct{})
	var once sync.Once
	goodFront := heldRanges(t, startServe(t, dir()), asked)
	front := heldRanges(t, startServe(t, dir(), "--duplicate", goodFront.URL+"/"), asked)
	liar := servertest.New(t, dir(), server.WithFlippedByteEvery(64<<10))
	liarProxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "" {
			once.Do(func() { close(asked) })
		}
		liar.Config.Handler.ServeHTTP(w, r)
	}))
	defer liarProxy.Close()
	good := goodFront.URL + "/"
	out := filepath.Join(t.TempDir(), "f")
	code, stdout, stderr := runHdig(t, "get", "--json", "--parallel", "3", "-o", out, "--mirror", liarProxy.URL+"/f", front.URL+"/f")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, data) {
		t.Fatalf("%s differs from the origin's file", out)
	}
	var j struct {
		Verdict  string `json:"verdict"`
		Transfer struct {
			Mirrors []fetch.MirrorReport `json:"mirrors"`
		} `json:"transfer"`
	}
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatalf("JSON %q: %v", stdout, err)
	}
	states := map[string]fetch.MirrorReport{}
	for _, m := range j.Transfer.Mirrors {
		states[m.URL] = m
	}
	if m := states[liarProxy.URL+"/f"]; j.Verdict != "verified" || m.State != fetch.MirrorCorrupt || m.From != "option" {
		t.Errorf("verdict %s, liar %+v; want verified, liar corrupt from option", j.Verdict, m)
	}
	if m, ok := states[good+"f"]; !ok || m.From != "link" || m.State == fetch.MirrorCorrupt || m.State == fetch.MirrorSkipped {
		t.Errorf("good mirror %+v (present %v), want taken from the Link and not skipped", m, ok)
	}
	if !strings.Contains(stderr, "wrong bytes from "+liarProxy.URL+"/f") {
		t.Errorf("verdict line does not name the liar:\n%s", stderr)
	}
}

func TestGetMirrorUsage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "f")
	for _, args := range [][]string{
		{"get", "--mirror", "http://127.0.0.1:9/f", "http://127.0.0.1:9/f"}, // no -o
		{"get", "-o", out, "--mirror", "ftp://127.0.0.1/f", "http://127.0.0.1:9/f"},
		{"get", "-o", out, "--mirror", "http://u:p@127.0.0.1:9/f", "http://127.0.0.1:9/f"},
		{"get", "-o", out, "--mirror", "f", "http://127.0.0.1:9/f"},
		{"get", "-o", out, "--max-mirrors", "-1", "http://127.0.0.1:9/f"},
		{"get", "-O", "--output-dir", t.TempDir(), "--mirror", "http://127.0.0.1:9/f", "http://127.0.0.1:9/f", "http://127.0.0.1:9/g"},
		{"serve", t.TempDir(), "--duplicate", "ftp://127.0.0.1/"},
	} {
		if code, stdout, _ := runHdig(t, args...); code != ExitUsage || stdout != "" {
			t.Errorf("hdig %s: exit %d, stdout %q; want 2 and nothing", strings.Join(args, " "), code, stdout)
		}
	}
}

// heldRanges proxies to base, holding range requests until open is closed.
func heldRanges(t *testing.T, base string, open <-chan struct{}) *httptest.Server {
	u, _ := url.Parse(base)
	rp := httputil.NewSingleHostReverseProxy(u)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "" {
			select {
			case <-open:
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestGetStdoutNoLinkMirrorsByDefault: to stdout without --parallel the
// body comes in one stream from the origin; a mirror the origin names in
// Link: rel=duplicate is not asked (as --mirror is refused there).
func TestGetStdoutNoLinkMirrorsByDefault(t *testing.T) {
	data := bytes.Repeat([]byte("mirror test "), 400<<10) // 4.8 MB
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "f"), data, 0o644)
	var asked atomic.Int32
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(data))
	}))
	defer mirror.Close()
	front := startServe(t, d, "--duplicate", mirror.URL+"/")
	code, out, errOut := runHdig(t, "get", front+"f")
	if code != 0 || out != string(data) || asked.Load() != 0 {
		t.Fatalf("exit %d, %d bytes of %d, mirror asked %d times, want 0; stderr %s", code, len(out), len(data), asked.Load(), errOut)
	}
}
