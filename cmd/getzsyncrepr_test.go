package cmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/zsync"
)

// reprOrigin serves /f with a Link to /f.zsync and, on each response,
// the Repr-Digest repr gives for its request (headOrGet; one that answers
// only Want-Repr-Digest), and the control file at /f.zsync.
type reprOrigin struct {
	body, ctl []byte
	repr      func(*http.Request) string // the Repr-Digest of a response of /f; "" leaves it out
}

func (o *reprOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !atFile(w, r, o.ctl) {
		return
	}
	w.Header().Set("ETag", `"v1"`)
	w.Header().Set("Link", `<f.zsync>; rel="describedby"; type="application/x-zsync"`)
	if v := o.repr(r); v != "" {
		w.Header().Set("Repr-Digest", v)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(o.body))
}

// headOrGet is a reprOrigin's repr: head for HEAD, get for the GETs (the
// range responses).
func headOrGet(head, get string) func(*http.Request) string {
	return func(r *http.Request) string {
		if r.Method == http.MethodHead {
			return head
		}
		return get
	}
}

// TestGetZsyncRangeReprDigest: the Repr-Digest the range responses carry
// describes the representation hdig rebuilds, as the HEAD's does: when it
// does not match, the run fails (exit 1), whether the HEAD sent none (it
// was reported unverified, exit 0) or a right one (reported verified).
func TestGetZsyncRangeReprDigest(t *testing.T) {
	cur := zsyncData(31, 300_000)
	ctl := controlFor(t, cur)
	right, wrong := sha256Member(cur), sha256Member([]byte("other"))
	for _, c := range []struct{ name, head, get string }{
		{"HEAD without", "", wrong},
		{"HEAD right", right, wrong},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(&reprOrigin{body: cur, ctl: ctl, repr: headOrGet(c.head, c.get)})
			defer ts.Close()
			wantZsyncMismatch(t, corrupt(cur, 1000, 150_000), ts.URL+"/f", "range responses with a wrong Repr-Digest")
		})
	}
}

// trailerOrigin answers each single range with a chunked 206 whose
// Repr-Digest comes in the trailer.
type trailerOrigin struct {
	body, ctl []byte
	repr      string
}

func (o *trailerOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/f.zsync" {
		w.Write(o.ctl)
		return
	}
	spec := strings.TrimPrefix(r.Header.Get("Range"), "bytes=")
	a, b, ok := strings.Cut(spec, "-")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	if !ok || strings.Contains(spec, ",") || err1 != nil || err2 != nil {
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(o.body))
		return
	}
	w.Header().Set("ETag", `"v1"`)
	w.Header().Set("Trailer", "Repr-Digest")
	w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(o.body)))
	w.WriteHeader(http.StatusPartialContent)
	w.Write(o.body[first : last+1])
	w.Header().Set("Repr-Digest", o.repr)
}

// TestGetZsyncRangeTrailerReprDigest: a Repr-Digest a range response
// sends in its trailer is checked against the rebuilt file as one in its
// header is: a wrong one fails the run (it was not looked at: exit 0).
func TestGetZsyncRangeTrailerReprDigest(t *testing.T) {
	cur := zsyncData(32, 300_000)
	ts := httptest.NewServer(&trailerOrigin{body: cur, ctl: controlFor(t, cur), repr: sha256Member([]byte("other"))})
	defer ts.Close()
	wantZsyncMismatch(t, corrupt(cur, 1000), ts.URL+"/f.zsync", "a range response with a wrong Repr-Digest in its trailer")
}

// TestGetZsyncAsksForReprDigest: the range requests (and the HEAD --strategy
// auto sends) carry Want-Repr-Digest as a plain GET does, so an origin
// that sends Repr-Digest only when asked proves the rebuilt file: without
// it, --require-digest failed (exit 3) where the plain download passed.
func TestGetZsyncAsksForReprDigest(t *testing.T) {
	cur := zsyncData(33, 300_000)
	ts := httptest.NewServer(&reprOrigin{body: cur, ctl: controlFor(t, cur), repr: func(r *http.Request) string {
		if r.Header.Get("Want-Repr-Digest") == "" {
			return "" // as an origin computing digests on demand may
		}
		return sha256Member(cur)
	}})
	defer ts.Close()
	work := t.TempDir()
	seed := filepath.Join(work, "seed")
	os.WriteFile(seed, corrupt(cur, 1000), 0o644)
	for _, url := range []string{ts.URL + "/f.zsync", ts.URL + "/f"} {
		out := filepath.Join(work, "new")
		code, _, errOut := runHdig(t, "get", "--zsync", "--no-cache", "--require-digest", "--seed", seed, "-o", out, url)
		if code != ExitOK || !strings.Contains(errOut, "verified Repr-Digest") {
			t.Errorf("%s: hdig get --zsync --require-digest = %d, %q; want 0 and verified", url, code, errOut)
		}
		os.Remove(out)
	}
}

// controlFor is the control file of body, naming it by the relative URL f.
func controlFor(t *testing.T, body []byte) []byte {
	t.Helper()
	ctl, err := zsync.Make(bytes.NewReader(body), int64(len(body)), zsync.MakeOptions{URL: "f"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ctl.WriteTo(&buf)
	return buf.Bytes()
}

// atFile answers a request of a test origin that is not for /f: the
// control file ctl at /f.zsync, 404 elsewhere. It reports whether the
// request is for /f, left to the caller.
func atFile(w http.ResponseWriter, r *http.Request, ctl []byte) bool {
	switch r.URL.Path {
	case "/f":
		return true
	case "/f.zsync":
		w.Write(ctl)
	default:
		http.NotFound(w, r)
	}
	return false
}

// sha256Member is a Repr-Digest of b's sha-256.
func sha256Member(b []byte) string {
	s := sha256.Sum256(b)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"
}

// wantZsyncMismatch runs hdig get --zsync from seed into a new file and
// wants exit 1 naming Repr-Digest, and no file written.
func wantZsyncMismatch(t *testing.T, seed []byte, url, what string) {
	t.Helper()
	work := t.TempDir()
	seedPath, out := filepath.Join(work, "seed"), filepath.Join(work, "new")
	os.WriteFile(seedPath, seed, 0o644)
	code, _, errOut := runHdig(t, "get", "--zsync", "--no-cache", "--seed", seedPath, "-o", out, url)
	if code != ExitIntegrity || !strings.Contains(errOut, "Repr-Digest") {
		t.Errorf("%s = %d, %q; want 1 and a Repr-Digest mismatch", what, code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the output was written")
	}
}
