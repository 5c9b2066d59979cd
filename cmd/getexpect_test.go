package cmd

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/internal/peertest"

	"github.com/hdig/hdig/server/servertest"
)

// tool returns the path of a peer tool; without it the test is skipped,
// except under CI, where it fails (as the xdelta3 interop tests do).
func tool(t *testing.T, name string) string {
	return peertest.Need(t, name)
}

// run runs a command in dir and returns its stdout.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

// expectSite serves app.bin and other.bin with the sums coreutils and
// openssl wrote for them.
func expectSite(t *testing.T) (url, site string, sums map[string]string) {
	t.Helper()
	sha256sum, sha512sum, openssl := tool(t, "sha256sum"), tool(t, "sha512sum"), tool(t, "openssl")
	site = t.TempDir()
	os.WriteFile(filepath.Join(site, "app.bin"), []byte(strings.Repeat("hdig expects this\n", 999)), 0o644)
	os.WriteFile(filepath.Join(site, "other.bin"), []byte("something else\n"), 0o644)
	sums = map[string]string{
		"SHA256SUMS":    run(t, site, sha256sum, "other.bin", "app.bin"),
		"SHA512SUMS":    run(t, site, sha512sum, "--tag", "app.bin", "other.bin"),
		"sri384":        strings.TrimSpace(run(t, site, "sh", "-c", openssl+" dgst -sha384 -binary app.bin | "+openssl+" base64 -A")),
		"sri384 other":  strings.TrimSpace(run(t, site, "sh", "-c", openssl+" dgst -sha384 -binary other.bin | "+openssl+" base64 -A")),
		"sha256 app":    strings.Fields(run(t, site, sha256sum, "app.bin"))[0],
		"sha512 app":    strings.Fields(run(t, site, sha512sum, "app.bin"))[0],
		"sha256 binary": run(t, site, sha256sum, "-b", "app.bin"),
	}
	for _, n := range []string{"SHA256SUMS", "SHA512SUMS"} {
		os.WriteFile(filepath.Join(site, n), []byte(sums[n]), 0o644)
	}
	return servertest.New(t, site).URL, site, sums
}

func TestGetExpectInterop(t *testing.T) {
	url, site, sums := expectSite(t)
	app := url + "/app.bin"
	sumsDir := t.TempDir()
	os.WriteFile(filepath.Join(sumsDir, "SHA256SUMS"), []byte(sums["SHA256SUMS"]), 0o644)
	os.WriteFile(filepath.Join(sumsDir, "binary.sums"), []byte(sums["sha256 binary"]), 0o644)
	os.WriteFile(filepath.Join(sumsDir, "SHA512SUMS"), []byte(sums["SHA512SUMS"]), 0o644)
	for _, tt := range []struct {
		name  string
		args  []string
		field string // the field that matched
		warn  string
	}{
		{"sri from openssl", []string{"--expect", "sha384-" + sums["sri384"]}, "--expect sha-384", ""},
		{"oci", []string{"--expect", "sha256:" + sums["sha256 app"]}, "--expect sha-256", ""},
		{"rfc 9530", []string{"--expect", "sha-512=:" + hexToB64(t, sums["sha512 app"]) + ":"}, "--expect sha-512", ""},
		{"bare hex inferred", []string{"--expect", sums["sha256 app"]}, "--expect sha-256", "64 hex digits read as sha-256"},
		{"bare hex named", []string{"--expect-alg", "sha-512", "--expect", sums["sha512 app"]}, "--expect sha-512", ""},
		{"npm integrity", []string{"--expect", "sha512-" + hexToB64(t, sums["sha512 app"]) + " sha384-" + sums["sri384"]}, "--expect sha-512, sha-384", ""},
		{"sha256sum file", []string{"--checksum-file", filepath.Join(sumsDir, "SHA256SUMS")}, "--checksum-file sha-256", "read as sha-256"},
		{"sha256sum -b file", []string{"--checksum-file", filepath.Join(sumsDir, "binary.sums")}, "--checksum-file sha-256", ""},
		{"sha512sum --tag file", []string{"--checksum-file", filepath.Join(sumsDir, "SHA512SUMS")}, "--checksum-file sha-512", ""},
		{"checksum file by URL", []string{"--checksum-file", url + "/SHA256SUMS"}, "--checksum-file sha-256", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "app.bin")
			args := append(append([]string{"get", "--no-cache", "-o", out}, tt.args...), app)
			code, _, errOut := runHdig(t, args...)
			if code != 0 || !strings.Contains(errOut, tt.field) || !strings.Contains(errOut, tt.warn) {
				t.Fatalf("exit %d, want 0 naming %q and %q: %s", code, tt.field, tt.warn, errOut)
			}
			want, _ := os.ReadFile(filepath.Join(site, "app.bin"))
			assertFile(t, out, string(want))
		})
	}
}

func hexToB64(t *testing.T, h string) string {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// A wrong digest is exit 1 with nothing written, as for Repr-Digest; a
// checksum file without an entry is exit 2 with nothing fetched.
func TestGetExpectFailures(t *testing.T) {
	url, _, sums := expectSite(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "app.bin")
	os.WriteFile(out, []byte("mine"), 0o644)
	code, v, errOut := getJSON(t, "--no-cache", "-o", out, "--expect", "sha384-"+sums["sri384 other"], url+"/app.bin")
	if code != 1 || v.Verdict != "mismatch" || !strings.Contains(errOut, "✖ mismatch --expect sha-384") {
		t.Fatalf("wrong --expect: exit %d, %+v: %s", code, v, errOut)
	}
	found := false
	for _, d := range v.Digests {
		found = found || d.Field == "--expect" && d.Algorithm == "sha-384" && d.Result == "mismatch"
	}
	if !found {
		t.Errorf("--json digests %+v lack the --expect mismatch", v.Digests)
	}
	assertFile(t, out, "mine")

	sumsFile := filepath.Join(dir, "SUMS")
	os.WriteFile(sumsFile, []byte(sums["SHA256SUMS"]), 0o644)
	code, _, errOut = runHdig(t, "get", "--no-cache", "--checksum-file", sumsFile, "-o", filepath.Join(dir, "x.bin"), url+"/missing.bin")
	if code != 2 || !strings.Contains(errOut, `no entry for "x.bin" or "missing.bin"`) {
		t.Errorf("missing entry: exit %d, want 2: %s", code, errOut)
	}
	for _, bad := range [][]string{{"--expect", "sha256-short"}, {"--expect-alg", "blake3", "--expect", "ab"}, {"--checksum-file", filepath.Join(dir, "none")}} {
		if code, _, errOut := runHdig(t, append(append([]string{"get", "--no-cache"}, bad...), url+"/app.bin")...); code != 2 || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, want 2 with one line: %q", bad, code, errOut)
		}
	}
}

// With a delta the user's digest covers the rebuilt instance; a wrong one
// fails the delta and the full refetch alike: exit 1, not 5.
func TestGetExpectDelta(t *testing.T) {
	site, cacheDir := t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	out := filepath.Join(t.TempDir(), "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	url := deltaOrigin(t, site, nil) + "/app.js"
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, url); code != 0 {
		t.Fatalf("first: exit %d: %s", code, errOut)
	}
	os.WriteFile(file, versionText(2), 0o644)
	sum := sha512.Sum384(versionText(2))
	sri := "sha384-" + base64.StdEncoding.EncodeToString(sum[:])
	code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "-o", out, "--expect", sri, url)
	if code != 0 || v.Transfer.Strategy != "delta" || !strings.Contains(errOut, "--expect sha-384") {
		t.Fatalf("delta with --expect: exit %d, %+v: %s", code, v, errOut)
	}
	os.WriteFile(file, versionText(3), 0o644)
	code, _, errOut = runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, "--expect", sri, url)
	if code != 1 || !strings.Contains(errOut, "mismatch --expect sha-384") {
		t.Fatalf("wrong --expect over a delta: exit %d, want 1: %s", code, errOut)
	}
	assertFile(t, out, string(versionText(2)))
}

// The origin's fields outside RFC 9530 are named by their real field in
// the verdict line and in --json.
func TestGetForeignFieldsJSON(t *testing.T) {
	body := []byte("stored object\n")
	sum := sha256.Sum256(body)
	var mode atomic.Value
	mode.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode.Store(r.Header.Get("x-amz-checksum-mode"))
		w.Header().Set("x-amz-checksum-sha256", base64.StdEncoding.EncodeToString(sum[:]))
		w.Header().Set("x-amz-checksum-crc32c", "AAAAAA==-2")
		w.Write(body)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "o")
	code, v, errOut := getJSON(t, "--no-cache", "--amz-checksum-mode", "--require-digest", "-o", out, srv.URL+"/o")
	if code != 0 || v.Verdict != "verified" || !strings.Contains(errOut, "✔ verified x-amz-checksum-sha256 sha-256") {
		t.Fatalf("exit %d, %+v: %s", code, v, errOut)
	}
	got := map[string]string{}
	for _, d := range v.Digests {
		got[d.Field+" "+d.Algorithm] = d.Result
	}
	if got["x-amz-checksum-sha256 sha-256"] != "match" || got["x-amz-checksum-crc32c crc32c"] != "ignored" || mode.Load() != "ENABLED" {
		t.Errorf("digests %v, x-amz-checksum-mode %q", got, mode.Load())
	}
}

// HEAD has no content, and a range is not the whole representation, so
// nothing hdig computes can match the user's digest: -I (or -X HEAD), -r
// (or a Range header) with --expect or --checksum-file is a usage error,
// one line naming both, with nothing fetched, rather than exit 0 with the
// digest never compared.
func TestGetExpectHead(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.ServeContent(w, r, "h.json", time.Time{}, strings.NewReader(servertest.Hello)) // ranges honoured
	}))
	defer srv.Close()
	sums := filepath.Join(t.TempDir(), "SUMS")
	os.WriteFile(sums, []byte(strings.Repeat("0", 64)+"  h.json\n"), 0o644)
	zero := "sha256:" + strings.Repeat("0", 64)
	for _, tt := range []struct {
		args []string
		want []string // in the one line
	}{
		{[]string{"-I", "--expect", zero}, []string{"-I", "--expect"}},
		{[]string{"-I", "--json", "--expect", zero}, []string{"-I", "--expect"}},
		{[]string{"-I", "--require-digest", "--expect", zero}, []string{"-I", "--expect"}},
		{[]string{"-I", "--checksum-file", sums}, []string{"-I", "--checksum-file"}},
		{[]string{"-X", "HEAD", "--expect", zero}, []string{"HEAD", "--expect"}},
		// A range is not the whole representation the digest covers: its
		// 206 reported the digest ignored under "✔ verified", exit 0.
		{[]string{"-r", "0-9", "--expect", zero}, []string{"-r", "--expect"}},
		{[]string{"-o", filepath.Join(t.TempDir(), "h.json"), "-r", "0-9", "--checksum-file", sums}, []string{"-r", "--checksum-file"}},
		{[]string{"-H", "Range: bytes=0-9", "--expect", zero}, []string{"Range", "--expect"}},
	} {
		code, out, errOut := runHdig(t, append(append([]string{"get", "--no-cache"}, tt.args...), srv.URL+"/h.json")...)
		// No headers on stdout; with --json, the error verdict alone.
		ok := code == 2 && strings.Count(errOut, "\n") == 1 && (out == "" || strings.Contains(out, `"verdict":"error"`) && !strings.Contains(out, "Content-Length"))
		for _, w := range tt.want {
			ok = ok && strings.Contains(errOut, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, want 2 with one line naming %v: %q (stdout %q)", tt.args, code, tt.want, errOut, out)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent; a usage error fetches nothing", n)
	}
}

// TestGetExpectConflicting: two digests of one algorithm that differ,
// from two --expect flags or from --expect and the --checksum-file entry,
// cannot both describe the bytes: a usage error before any request, as
// two differing values in one --expect and two differing lines of one
// checksum file are, rather than a download that can only fail.
func TestGetExpectConflicting(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, servertest.Hello)
	}))
	defer srv.Close()
	sum := sha256.Sum256([]byte(servertest.Hello))
	right := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("0", 64)
	sums := filepath.Join(t.TempDir(), "SUMS")
	os.WriteFile(sums, []byte(wrong+"  h.json\n"), 0o644)
	for _, args := range [][]string{
		{"--expect", "sha256:" + right, "--expect", "sha256:" + wrong},
		{"--expect", "sha256:" + right, "--checksum-file", sums},
	} {
		code, _, errOut := runHdig(t, append(append([]string{"get", "--no-cache"}, args...), srv.URL+"/h.json")...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "two sha-256 digests") {
			t.Errorf("%v: exit %d, %q; want 2 and one line naming two sha-256 digests", args, code, errOut)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent; a usage error fetches nothing", n)
	}
	// Alike, they are one expectation.
	if code, _, errOut := runHdig(t, "get", "--no-cache", "--expect", "sha256:"+right, "--expect", right, srv.URL+"/h.json"); code != 0 {
		t.Errorf("two equal --expect: exit %d, %s", code, errOut)
	}
}

// TestGetChecksumFileFromHdigSum: what hdig sum prints (its default RFC
// 9530 lines, --format sri and oci) is a checksum file hdig get reads.
func TestGetChecksumFileFromHdigSum(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, servertest.Hello)
	}))
	defer srv.Close()
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("h.json", []byte(servertest.Hello), 0o644)
	os.WriteFile("other", []byte("other bytes"), 0o644)
	for _, format := range []string{"rfc9530", "sri", "oci"} {
		code, sums, errOut := runHdig(t, "sum", "--format", format, "-a", "sha-256", "h.json")
		if code != 0 {
			t.Fatalf("sum --format %s: exit %d: %s", format, code, errOut)
		}
		os.WriteFile("SUMS", []byte(sums), 0o644)
		out := filepath.Join(dir, "out", "h.json")
		if code, _, errOut := runHdig(t, "get", "--no-cache", "--create-dirs", "--require-digest", "--checksum-file", "SUMS", "-o", out, srv.URL+"/h.json"); code != 0 {
			t.Errorf("%s: get --checksum-file with hdig sum's line: exit %d: %s", format, code, errOut)
		}
		_, other, _ := runHdig(t, "sum", "--format", format, "-a", "sha-256", "other")
		os.WriteFile("SUMS", []byte(strings.Replace(other, "other", "h.json", 1)), 0o644)
		if code, _, errOut := runHdig(t, "get", "--no-cache", "--checksum-file", "SUMS", "-o", filepath.Join(dir, "bad"), srv.URL+"/h.json"); code != ExitIntegrity {
			t.Errorf("%s: a wrong hdig sum line: exit %d, want 1: %s", format, code, errOut)
		}
	}
}

// A 304 to -o FILE whose --expect was compared with FILE speaks of FILE's
// bytes: --json's bytes and the verdict line give FILE's size, not the
// 304's empty content ("0 B").
func TestGet304ExpectReportsFileSize(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.WriteHeader(http.StatusNotModified)
	}))
	defer srv.Close()
	dst := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(dst, []byte(helloBody), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"get", "-H", `If-None-Match: "v1"`, "-o", dst}
	code, out, errOut := runHdig(t, append(args, "--json", "--expect", helloSHA256, srv.URL)...)
	if v := decodeVerdict(t, out); code != 0 || v.Verdict != "verified" || v.Bytes != int64(len(helloBody)) {
		t.Errorf("match: exit %d, %+v; stderr %s; want verified, bytes %d", code, v, errOut, len(helloBody))
	}
	code, _, errOut = runHdig(t, append(args, "--expect", emptySHA256, srv.URL)...)
	if want := humanBytes(int64(len(helloBody))); code != 1 || !strings.Contains(errOut, want) || strings.Contains(errOut, "0 B") {
		t.Errorf("mismatch: exit %d, stderr %q; want exit 1 and %s", code, errOut, want)
	}
}

// From an origin that sends no digest, --expect is the proof: the verdict
// line says verified by it, and no warning says "nothing proves these
// bytes" beside it.
func TestGetExpectNoOriginDigestWording(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello\n"))
	}))
	defer srv.Close()
	sum := sha256.Sum256([]byte("hello\n"))
	code, _, errOut := runHdig(t, "get", "--no-cache", "-o", filepath.Join(t.TempDir(), "f"), "--expect", "sha256:"+hex.EncodeToString(sum[:]), srv.URL+"/f")
	if code != 0 || !strings.Contains(errOut, "verified") || strings.Contains(errOut, "nothing proves") {
		t.Errorf("exit %d, stderr %q; want verified by --expect, without \"nothing proves\"", code, errOut)
	}
}

// A digest the user names in a deprecated algorithm (md5, sha, or a
// checksum such as crc32c) still proves the bytes are the ones named, but
// the user is told that the algorithm does not resist a deliberate
// collision; sha-256 gets no such warning, and -s silences it.
func TestGetExpectDeprecatedNamedWarns(t *testing.T) {
	body := []byte("hello\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	defer srv.Close()
	m := md5.Sum(body)
	s := sha256.Sum256(body)
	for _, tc := range []struct {
		name string
		args []string
		warn bool
	}{
		{"md5 named", []string{"--expect", "md5=:" + base64.StdEncoding.EncodeToString(m[:]) + ":"}, true},
		{"md5 by --expect-alg", []string{"--expect-alg", "md5", "--expect", hex.EncodeToString(m[:])}, true},
		{"sha-256", []string{"--expect", "sha256:" + hex.EncodeToString(s[:])}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"get", "--no-cache", "-o", filepath.Join(t.TempDir(), "f")}, tc.args...)
			code, _, errOut := runHdig(t, append(args, srv.URL+"/f")...)
			warned := strings.Contains(errOut, "not resist")
			if code != 0 || !strings.Contains(errOut, "verified") || warned != tc.warn {
				t.Errorf("exit %d, stderr %q; want verified, warning %v", code, errOut, tc.warn)
			}
		})
	}
}

// With -OJ, --checksum-file looked up -J's hidden scratch name
// (.hdig-J.NAME) first, a name of hdig's no user writes in a checksum
// file: its entry was taken over the URL's. The file's final name is not
// known when the checksum file is read (before the response), so the
// names looked up are -O's (the URL's last segment), never the scratch
// name's.
func TestGetChecksumFileRemoteHeaderName(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="final.json"`)
		io.WriteString(w, servertest.Hello)
	}))
	defer srv.Close()
	good := sha256.Sum256([]byte(servertest.Hello))
	bad := sha256.Sum256([]byte("other bytes"))
	for _, c := range []struct {
		name, sums string
		want       int
	}{
		{"scratch name's entry first", hex.EncodeToString(bad[:]) + "  .hdig-J.h.json\n" + hex.EncodeToString(good[:]) + "  h.json\n", 0},
		{"scratch name's entry only", hex.EncodeToString(good[:]) + "  .hdig-J.h.json\n", ExitUsage},
		{"URL's name's entry", hex.EncodeToString(good[:]) + "  h.json\n", 0},
	} {
		dir := t.TempDir()
		t.Chdir(dir)
		os.WriteFile("SUMS", []byte(c.sums), 0o644)
		code, _, errOut := runHdig(t, "get", "--no-cache", "--require-digest", "--checksum-file", "SUMS", "-OJ", srv.URL+"/h.json")
		if code != c.want {
			t.Errorf("%s: exit %d, want %d: %s", c.name, code, c.want, errOut)
		}
		if _, err := os.Stat("final.json"); (err == nil) != (c.want == 0) {
			t.Errorf("%s: final.json: %v", c.name, err)
		}
	}
}
