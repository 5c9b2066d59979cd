package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

func zsyncVerdict(t *testing.T, stdout string) jsonVerdict {
	t.Helper()
	var v jsonVerdict
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("--json output %q: %v", stdout, err)
	}
	return v
}

// requestLog counts the requests an origin gets: "HEAD /f", "GET /f.zsync",
// "RANGE /f" (a GET with Range), "DELTA /f" (a GET with A-IM).
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := r.Method
		switch {
		case r.Header.Get("Range") != "":
			kind = "RANGE"
		case r.Header.Get("A-IM") != "":
			kind = "DELTA"
		}
		l.mu.Lock()
		l.seen = append(l.seen, kind+" "+r.URL.Path)
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) count(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.seen {
		if strings.HasPrefix(s, kind+" ") {
			n++
		}
	}
	return n
}

// zsyncServe serves dir with the reference origin, logging requests; wrap,
// if set, goes around the origin's handler.
func zsyncServe(t *testing.T, dir string, wrap func(http.Handler) http.Handler, opts ...server.Option) (string, *requestLog) {
	t.Helper()
	s, err := server.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	log := &requestLog{}
	h := s.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(log.wrap(h))
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL + "/", log
}

// zsyncVersions writes data.bin (the new version) in a served directory
// and returns it with an old version: 20 scattered edits and 9 bytes
// inserted at the start.
func zsyncVersions(t *testing.T) (dir string, cur, old []byte) {
	dir = t.TempDir()
	cur = zsyncData(11, 1<<20)
	if err := os.WriteFile(filepath.Join(dir, "data.bin"), cur, 0o644); err != nil {
		t.Fatal(err)
	}
	old = append([]byte("inserted!"), cur...)
	for k := 1; k <= 20; k++ {
		old[k*50_000] ^= 0xff
	}
	return dir, cur, old
}

// TestGetZsyncDiscoversLink: with a plain file URL, hdig get --zsync finds
// the control file through the HEAD's Link, uses the existing -o file as
// its seed, verifies Repr-Digest and the SHA-1, and says zsync.
func TestGetZsyncDiscoversLink(t *testing.T) {
	dir, cur, old := zsyncVersions(t)
	url, log := zsyncServe(t, dir, nil)
	out := filepath.Join(t.TempDir(), "data.bin")
	os.WriteFile(out, old, 0o644)
	code, stdout, errOut := runHdig(t, "get", "--json", "--zsync", "--cache-dir", t.TempDir(), "-o", out, url+"data.bin")
	v := zsyncVerdict(t, stdout)
	if code != ExitOK || v.Verdict != "verified" || v.Transfer.Strategy != "zsync" {
		t.Fatalf("hdig get --zsync URL = %d, %s, %s; want 0, verified, zsync\n%s", code, v.Verdict, v.Transfer.Strategy, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, cur) {
		t.Fatal("rebuilt file differs")
	}
	fields := map[string]bool{}
	for _, d := range v.Digests {
		fields[d.Field+" "+d.Algorithm+" "+d.Result] = true
	}
	// The control file's SHA-1 is deprecated: reported as matching, but
	// only Repr-Digest proves the file (unless --accept sha).
	if !fields["Repr-Digest sha-256 match"] || !fields["zsync sha ignored"] {
		t.Errorf("digests %+v: want Repr-Digest sha-256 matched and zsync sha reported, not proof", v.Digests)
	}
	// 21 changed places, each at most 3 blocks once coalesced.
	if r := v.Transfer.Received; r == 0 || r > 21*3*2048 || v.Transfer.Reused+r < int64(len(cur)) {
		t.Errorf("received %d, reused %d; want 1 to %d received, the rest reused", r, v.Transfer.Reused, 21*3*2048)
	}
	if log.count("HEAD") != 1 || log.count("GET") != 1 || log.count("RANGE") != v.Transfer.Pieces {
		t.Errorf("requests %q: want one HEAD, one GET (the control file), %d range requests", log.seen, v.Transfer.Pieces)
	}
}

// TestGetZsyncURLFlag: an origin without Link: --zsync-url names the
// control file, relative to URL; without it the error says what to do.
func TestGetZsyncURLFlag(t *testing.T) {
	dir, cur, old := zsyncVersions(t)
	noLink := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(&dropLink{ResponseWriter: w}, r)
		})
	}
	url, _ := zsyncServe(t, dir, noLink)
	work := t.TempDir()
	seed := filepath.Join(work, "old")
	os.WriteFile(seed, old, 0o644)
	out := filepath.Join(work, "new")
	code, _, errOut := runHdig(t, "get", "--zsync", "--no-cache", "--seed", seed, "-o", out, url+"data.bin")
	if code != ExitProtocol || !strings.Contains(errOut, "advertises no zsync control file") || !strings.Contains(errOut, "--zsync-url") {
		t.Errorf("without Link = %d, %q; want 5 and a hint at --zsync-url", code, errOut)
	}
	code, _, errOut = runHdig(t, "get", "--zsync", "--no-cache", "--zsync-url", "data.bin.zsync", "--seed", seed, "-o", out, url+"data.bin")
	if code != ExitOK || !strings.Contains(errOut, "zsync:") {
		t.Fatalf("--zsync-url = %d, %q; want 0 and a zsync verdict", code, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, cur) {
		t.Fatal("rebuilt file differs")
	}
}

// dropLink removes the Link header of a response.
type dropLink struct{ http.ResponseWriter }

func (d *dropLink) WriteHeader(code int) {
	d.Header().Del("Link")
	d.ResponseWriter.WriteHeader(code)
}

func (d *dropLink) Write(p []byte) (int, error) {
	d.Header().Del("Link")
	return d.ResponseWriter.Write(p)
}

// TestGetZsyncCachedSeed: a version fetched earlier (in the cache) is the
// seed when neither --seed nor the -o file holds the old bytes.
func TestGetZsyncCachedSeed(t *testing.T) {
	dir, cur, old := zsyncVersions(t)
	os.WriteFile(filepath.Join(dir, "data.bin"), old, 0o644)
	url, _ := zsyncServe(t, dir, nil)
	cacheDir, work := t.TempDir(), t.TempDir()
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", filepath.Join(work, "v1"), url+"data.bin"); code != ExitOK {
		t.Fatalf("first get = %d: %s", code, errOut)
	}
	// v1 stays where it is, linked from the cache; it is neither --seed
	// nor -o: only the cache can offer it.
	os.WriteFile(filepath.Join(dir, "data.bin"), cur, 0o644)
	out := filepath.Join(work, "v2")
	code, stdout, errOut := runHdig(t, "get", "--json", "--zsync", "--cache-dir", cacheDir, "-o", out, url+"data.bin")
	v := zsyncVerdict(t, stdout)
	if code != ExitOK || v.Transfer.Reused < int64(len(cur))*9/10 {
		t.Fatalf("get --zsync with a cached base = %d, reused %d of %d; want 0 and most reused\n%s", code, v.Transfer.Reused, len(cur), errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, cur) {
		t.Fatal("rebuilt file differs")
	}
}

// TestGetZsyncReprDigestMismatch: blocks and SHA-1 match the control file,
// but the origin's Repr-Digest does not: exit 1, nothing written.
func TestGetZsyncReprDigestMismatch(t *testing.T) {
	dir, _, old := zsyncVersions(t)
	// The control file comes from a clean origin: the fault options reach
	// control files too, and this test is about the rebuilt file's digest.
	clean, err := server.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { clean.Close() })
	controlClean := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, ".zsync") {
				clean.Handler().ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	url, _ := zsyncServe(t, dir, controlClean, server.WithWrongDigest(verify.ReprDigest))
	work := t.TempDir()
	seed := filepath.Join(work, "old")
	os.WriteFile(seed, old, 0o644)
	out := filepath.Join(work, "new")
	code, _, errOut := runHdig(t, "get", "--zsync", "--no-cache", "--seed", seed, "-o", out, url+"data.bin")
	if code != ExitIntegrity || !strings.Contains(errOut, "mismatch Repr-Digest") {
		t.Errorf("a wrong Repr-Digest = %d, %q; want 1 and a Repr-Digest mismatch", code, errOut)
	}
	for _, p := range []string{out, out + ".hdig-part"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestGetZsyncMaxFilesize: a control file whose Length is over
// --max-filesize is refused (exit 4) before any range is asked for.
func TestGetZsyncMaxFilesize(t *testing.T) {
	dir, _, _ := zsyncVersions(t)
	url, log := zsyncServe(t, dir, nil)
	out := filepath.Join(t.TempDir(), "new")
	code, _, errOut := runHdig(t, "get", "--zsync", "--no-cache", "--max-filesize", "1000000", "-o", out, url+"data.bin")
	if code != ExitNetwork || !strings.Contains(errOut, fmt.Sprintf("Length is %d bytes, over --max-filesize 1000000", 1<<20)) {
		t.Errorf("over --max-filesize = %d, %q; want 4", code, errOut)
	}
	if n := log.count("RANGE"); n != 0 {
		t.Errorf("%d range requests sent, want none", n)
	}
}
