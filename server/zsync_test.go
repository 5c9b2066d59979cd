package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/internal/peertest"
	"github.com/hdig/hdig/zsync"
)

func getZsync(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	must(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp, body
}

// TestServeZsyncControlFile: FILE.zsync is FILE's control file, the one
// zsync.Make writes, made once per version of FILE; FILE links to it.
func TestServeZsyncControlFile(t *testing.T) {
	dir := fixture(t)
	s, ts := start(t, dir, WithSettle(0)) // settled: control files are kept
	resp, _ := getZsync(t, ts.URL+"/data.bin")
	if got, want := resp.Header.Get("Link"), `<data.bin.zsync>; rel="describedby"; type="application/x-zsync"`; got != want {
		t.Errorf("Link = %q, want %q", got, want)
	}
	resp, body := getZsync(t, ts.URL+"/data.bin.zsync")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-zsync" {
		t.Fatalf("GET data.bin.zsync = %d %q, want 200 application/x-zsync", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	fi, err := os.Stat(filepath.Join(dir, "data.bin"))
	must(t, err)
	want, err := zsync.Make(bytes.NewReader(binData), int64(len(binData)), zsync.MakeOptions{Filename: "data.bin", MTime: fi.ModTime(), URL: "data.bin"})
	must(t, err)
	var wantBody bytes.Buffer
	want.WriteTo(&wantBody)
	if !bytes.Equal(body, wantBody.Bytes()) {
		t.Fatalf("served control file (%d B) differs from zsync.Make's (%d B)", len(body), wantBody.Len())
	}
	if resp.Header.Get("Link") != "" {
		t.Errorf("the control file itself has Link %q, want none", resp.Header.Get("Link"))
	}
	etag := resp.Header.Get("ETag")
	resp, _ = getZsync(t, ts.URL+"/data.bin.zsync", "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the control file's ETag = %d, want 304", resp.StatusCode)
	}
	if n := len(s.zsync.files); n != 1 {
		t.Errorf("control files made for two requests of one version: %d, want 1", n)
	}

	// A new version of the file gets a new control file.
	newer := append(bytes.Clone(binData), "more"...)
	must(t, os.WriteFile(filepath.Join(dir, "data.bin"), newer, 0o644))
	must(t, os.Chtimes(filepath.Join(dir, "data.bin"), time.Now(), time.Now().Add(time.Hour)))
	_, body = getZsync(t, ts.URL+"/data.bin.zsync")
	ctl, err := zsync.Read(bytes.NewReader(body))
	must(t, err)
	if err := ctl.Verify(bytes.NewReader(newer)); err != nil {
		t.Errorf("control file after the file changed: %v", err)
	}
	if n := len(s.zsync.files); n != 2 {
		t.Errorf("control files made for two versions: %d, want 2", n)
	}
}

// TestServeZsyncOnlyForFiles: a real FILE.zsync is served as it is; no
// control file exists for missing files, directories or hidden files.
func TestServeZsyncOnlyForFiles(t *testing.T) {
	dir := fixture(t)
	must(t, os.WriteFile(filepath.Join(dir, "hello.json.zsync"), []byte("mine"), 0o644))
	_, ts := start(t, dir)
	if resp, body := getZsync(t, ts.URL+"/hello.json.zsync"); resp.StatusCode != 200 || string(body) != "mine" {
		t.Errorf("GET of an existing .zsync file = %d %q, want 200 \"mine\"", resp.StatusCode, body)
	}
	for _, p := range []string{"/missing.zsync", "/sub.zsync", "/.secret.zsync", "/sub/.env.zsync", "/.zsync", "/link-out.zsync"} {
		if resp, _ := getZsync(t, ts.URL+p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, resp.StatusCode)
		}
	}
	if resp, _ := getZsync(t, ts.URL+"/sub/"); resp.Header.Get("Link") != "" {
		t.Errorf("a directory listing has Link %q, want none", resp.Header.Get("Link"))
	}
}

// TestServeZsyncClient: Debian's zsync 0.6.2 rebuilds data.bin from an
// edited copy using the control file hdig serve makes. One edit keeps it
// to one range per request.
func TestServeZsyncClient(t *testing.T) {
	zs := peertest.Need(t, "zsync")
	dir := fixture(t)
	_, ts := start(t, dir)
	work := t.TempDir()
	old := bytes.Clone(binData)
	copy(old[300_000:], "an edit")
	must(t, os.WriteFile(filepath.Join(work, "old.bin"), old, 0o644))
	cmd := exec.Command(zs, "-i", "old.bin", "-o", "new.bin", ts.URL+"/data.bin.zsync")
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zsync: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(work, "new.bin"))
	must(t, err)
	if !bytes.Equal(got, binData) {
		t.Fatalf("zsync rebuilt a file that differs from data.bin\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Logf("zsync 0.6.2: %s", lines[len(lines)-1])
}

// TestServeZsyncNameEscaped: a file name with a space or a colon becomes
// a relative URL reference in the Link header and in the control file.
func TestServeZsyncNameEscaped(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a b.bin"), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "c:d.bin"), []byte("y"), 0o644))
	_, ts := start(t, dir)
	for name, want := range map[string]string{"a%20b.bin": "a%20b.bin", "c:d.bin": "./c:d.bin"} {
		resp, _ := getZsync(t, ts.URL+"/"+name)
		if got := resp.Header.Get("Link"); !strings.HasPrefix(got, "<"+want+".zsync>;") {
			t.Errorf("Link of %s = %q, want <%s.zsync>", name, got, want)
		}
		_, body := getZsync(t, ts.URL+"/"+name+".zsync")
		ctl, err := zsync.Read(bytes.NewReader(body))
		must(t, err)
		if len(ctl.URLs) != 1 || ctl.URLs[0] != want {
			t.Errorf("control file of %s names %q, want %q", name, ctl.URLs, want)
		}
	}
}

// A control file's ETag names its bytes, not only the file's: touching
// the file (same bytes, another MTime line) makes another control file,
// so an If-Range or If-None-Match holding the old one's ETag must not get
// a range of the new one (a splice) or a 304.
func TestZsyncControlETagFollowsBytes(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir)
	resp, old := getZsync(t, ts.URL+"/data.bin.zsync")
	etag := resp.Header.Get("ETag")
	p := filepath.Join(dir, "data.bin")
	later := time.Now().Add(-time.Hour).Truncate(time.Second)
	must(t, os.Chtimes(p, later, later))
	resp, cur := getZsync(t, ts.URL+"/data.bin.zsync")
	if bytes.Equal(old, cur) {
		t.Fatal("touching the file did not change its control file")
	}
	if resp.Header.Get("ETag") == etag {
		t.Errorf("two control files share the ETag %s", etag)
	}
	resp, part := getZsync(t, ts.URL+"/data.bin.zsync", "Range", "bytes=0-99", "If-Range", etag)
	if resp.StatusCode == http.StatusPartialContent {
		t.Errorf("If-Range with the old control file's ETag got 206 %q", part)
	}
	resp, _ = getZsync(t, ts.URL+"/data.bin.zsync", "If-None-Match", etag)
	if resp.StatusCode == http.StatusNotModified {
		t.Error("If-None-Match with the old control file's ETag got 304")
	}
}

// A control file is a representation like any other: its 200, 206 and
// HEAD carry its Repr-Digest, in the algorithm Want-Repr-Digest prefers.
func TestZsyncControlReprDigest(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir)
	resp, body := getZsync(t, ts.URL+"/data.bin.zsync")
	s256 := sha256.Sum256(body)
	if got, want := resp.Header.Get("Repr-Digest"), "sha-256=:"+base64.StdEncoding.EncodeToString(s256[:])+":"; got != want {
		t.Errorf("200: Repr-Digest %q, want %q", got, want)
	}
	resp, _ = getZsync(t, ts.URL+"/data.bin.zsync", "Range", "bytes=0-99", "Want-Repr-Digest", "sha-512=9")
	s512 := sha512.Sum512(body)
	if got, want := resp.Header.Get("Repr-Digest"), "sha-512=:"+base64.StdEncoding.EncodeToString(s512[:])+":"; resp.StatusCode != http.StatusPartialContent || got != want {
		t.Errorf("206 asking for sha-512: %d, Repr-Digest %q, want %q", resp.StatusCode, got, want)
	}
}

// TestZsyncControlDigestsOnlyForItsBytes: the control file's digest fields
// describe its bytes, so a response that does not carry them (416, 412)
// has only those of its problem body, and a Want-Repr-Digest refusing every usable
// algorithm gets no Repr-Digest rather than an empty one, as for any file.
func TestZsyncControlDigestsOnlyForItsBytes(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir)
	for _, tc := range []struct {
		header string
		status int
	}{
		{"Range: bytes=99999-", 416},
		{`If-Match: "sha256-other"`, 412},
		{"If-Unmodified-Since: Mon, 01 Jan 1990 00:00:00 GMT", 412},
		{"Want-Repr-Digest: sha-256=0, sha-512=0", 200},
	} {
		for _, p := range []string{"/hello.json", "/hello.json.zsync"} {
			r := raw(t, ts, "GET", p, tc.header)
			wantStatus(t, r, tc.status)
			if v, ok := r.Header[http.CanonicalHeaderKey("Repr-Digest")]; ok && (tc.status == 200 || v[0] != sfSHA256(r.body)) {
				t.Errorf("GET %s with %s: %d has Repr-Digest %q over a body of %q", p, tc.header, r.StatusCode, v, r.body)
			}
		}
	}
}

// TestZsyncControlContentDigest: a control file answers Want-Content-Digest
// as any representation does: its 200 with the digest of the whole control
// file, its 206 with the digest of the part sent, its HEAD (no content)
// with the digest of empty content, as for a file.
func TestZsyncControlContentDigest(t *testing.T) {
	_, ts := start(t, fixture(t))
	full := raw(t, ts, "GET", "/hello.json.zsync", "Want-Content-Digest: sha-256=1")
	wantStatus(t, full, http.StatusOK)
	wantHeader(t, full, "Content-Digest", sfSHA256(full.body))
	part := raw(t, ts, "GET", "/hello.json.zsync", "Want-Content-Digest: sha-256=1", "Range: bytes=5-20")
	wantStatus(t, part, http.StatusPartialContent)
	if !bytes.Equal(part.body, full.body[5:21]) {
		t.Fatalf("206 body %q, want %q", part.body, full.body[5:21])
	}
	wantHeader(t, part, "Content-Digest", sfSHA256(part.body))
	head := raw(t, ts, "HEAD", "/hello.json.zsync", "Want-Content-Digest: sha-256=1")
	wantHeader(t, head, "Content-Digest", emptySHA)
	wantHeader(t, head, "Repr-Digest", sfSHA256(full.body))
}

// TestZsyncControlFaults: the fault options apply to a control file's
// responses as to every other response, so a client's zsync path can be
// tested against a wrong digest, a flipped byte or digests in trailers.
func TestZsyncControlFaults(t *testing.T) {
	dir := fixture(t) // one file, one MTime: one control file
	_, clean := start(t, dir)
	good := raw(t, clean, "GET", "/hello.json.zsync")
	wantStatus(t, good, http.StatusOK)
	goodSum := sfSHA256(good.body)

	_, ts := start(t, dir, WithWrongDigest())
	r := raw(t, ts, "GET", "/hello.json.zsync", "Want-Content-Digest: sha-256=1")
	wantStatus(t, r, http.StatusOK)
	if !bytes.Equal(r.body, good.body) {
		t.Fatal("WithWrongDigest changed the control file's bytes")
	}
	for _, k := range []string{"Repr-Digest", "Content-Digest"} {
		if v := r.Header.Get(k); v == "" || v == goodSum {
			t.Errorf("WithWrongDigest: control file's %s = %q, want a wrong value", k, v)
		}
	}

	_, ts = start(t, dir, WithFlippedByte(3))
	r = raw(t, ts, "GET", "/hello.json.zsync")
	want := bytes.Clone(good.body)
	want[3] ^= 0xff
	if !bytes.Equal(r.body, want) {
		t.Errorf("WithFlippedByte(3): control file body %q, want %q", r.body[:10], want[:10])
	}
	wantHeader(t, r, "Repr-Digest", goodSum)

	_, ts = start(t, dir, WithoutDigests())
	r = raw(t, ts, "GET", "/hello.json.zsync", "Want-Content-Digest: sha-256=1")
	wantHeader(t, r, "Repr-Digest", "")
	wantHeader(t, r, "Content-Digest", "")

	_, ts = start(t, dir, WithTrailerDigests())
	r = raw(t, ts, "GET", "/hello.json.zsync")
	wantHeader(t, r, "Repr-Digest", "")
	if got := r.Trailer.Get("Repr-Digest"); got != goodSum {
		t.Errorf("WithTrailerDigests: control file's trailer Repr-Digest = %q, want %q", got, goodSum)
	}

	_, ts = start(t, dir, WithTruncatedBody(10))
	r = raw(t, ts, "GET", "/hello.json.zsync")
	if len(r.body) != 10 || r.bodyErr == nil {
		t.Errorf("WithTruncatedBody(10): control file read %d bytes, err %v; want 10 and an error", len(r.body), r.bodyErr)
	}
}
