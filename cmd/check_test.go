package cmd

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
	"github.com/hdig/hdig/server/servertest"
	"github.com/hdig/hdig/verify"
)

var update = flag.Bool("update", false, "update golden files in testdata/")

// checkSite is the directory the golden tests serve.
const checkSite = "testdata/check/site"

// assertCheckGolden compares output, with the origins' addresses replaced
// by http://ORIGIN and http://ORIGIN2, to testdata/check/name; -update
// rewrites the file.
func assertCheckGolden(t *testing.T, name string, origins [2]string, got string) {
	t.Helper()
	got = strings.NewReplacer(origins[0], "http://ORIGIN", origins[1], "http://ORIGIN2").Replace(got)
	path := filepath.Join("testdata", "check", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd -run Check -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test ./cmd -run Check -update to accept)\n--- got:\n%s", path, got)
	}
}

// TestCheckGolden runs hdig check, in every output format, against the
// reference origin (two good files and a missing one) and against one that
// ignores Range (a warning).
func TestCheckGolden(t *testing.T) {
	origins := [2]string{servertest.New(t, checkSite).URL, servertest.New(t, checkSite, server.WithIgnoreRange()).URL}
	urls := []string{origins[0] + "/hello.json", origins[0] + "/notes.txt", origins[0] + "/missing.txt", origins[1] + "/hello.json"}
	junit := filepath.Join(t.TempDir(), "report.xml")
	tests := []struct {
		golden string
		args   []string
	}{
		{"text.golden", nil},
		{"json.golden", []string{"--json"}},
		{"github.golden", []string{"--format", "github", "--junit", junit}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			args := append(append([]string{"check"}, tt.args...), urls...)
			code, out, errOut := runHdig(t, args...)
			if code != ExitIntegrity || errOut != "" {
				t.Errorf("exit %d, stderr %q; want 1 (missing.txt fails http.status) and no stderr", code, errOut)
			}
			assertCheckGolden(t, tt.golden, origins, out)
		})
	}
	xml, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	assertCheckGolden(t, "junit.golden", origins, string(xml))
}

// checkJSON runs hdig check --json and decodes its output.
func checkJSON(t *testing.T, args ...string) (int, map[string]string) {
	t.Helper()
	code, out, errOut := runHdig(t, append([]string{"check", "--json"}, args...)...)
	var doc struct {
		Results []struct {
			Checks []struct{ ID, Status, Message, RFC string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 {
		t.Fatalf("bad --json output (%v), stderr %q:\n%s", err, errOut, out)
	}
	statuses := map[string]string{}
	for _, c := range doc.Results[0].Checks {
		if c.RFC == "" || c.Message == "" {
			t.Errorf("%s has no rfc or message", c.ID)
		}
		statuses[c.ID] = c.Status
	}
	return code, statuses
}

func withStatus(statuses map[string]string, st string) []string {
	var out []string
	for id, s := range statuses {
		if s == st {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// TestCheckFaults: each fault of the reference origin makes exactly the
// expected checks fail (or warn), and sets the exit status.
func TestCheckFaults(t *testing.T) {
	tests := []struct {
		name string
		opts []server.Option
		args []string
		fail []string
		warn []string
		code int
	}{
		{"reference origin", nil, nil, nil, nil, ExitOK},
		{"without digests", []server.Option{server.WithoutDigests()}, nil, []string{"repr-digest.present"}, nil, ExitIntegrity},
		{"legacy Digest", []server.Option{server.WithLegacyDigest()}, nil, []string{"repr-digest.present"}, nil, ExitIntegrity},
		{"wrong Repr-Digest", []server.Option{server.WithWrongDigest(verify.ReprDigest)}, nil, []string{"encoding.repr-digest", "etag.consistency", "head.repr-digest", "range.multipart", "range.repr-digest", "repr-digest.match", "want-repr-digest.honoured", "zsync.control"}, nil, ExitIntegrity},
		{"wrong Content-Digest", []server.Option{server.WithWrongDigest(verify.ContentDigest)}, nil,
			[]string{"content-digest.match", "encoding.content-digest", "head.content-digest", "range.content-digest", "range.multipart", "want-repr-digest.honoured", "zsync.control"}, nil, ExitIntegrity},
		{"flipped byte", []server.Option{server.WithFlippedByte(10)}, nil,
			[]string{"content-digest.match", "encoding.content-digest", "encoding.decode", "encoding.repr-digest", "etag.consistency", "head.repr-digest", "range.multipart", "range.repr-digest", "repr-digest.match", "want-repr-digest.honoured", "zsync.control"}, nil, ExitIntegrity},
		{"truncated body", []server.Option{server.WithTruncatedBody(100)}, nil, []string{"http.status"}, nil, ExitIntegrity},
		{"lying Content-Range", []server.Option{server.WithLyingContentRange(2)}, nil, []string{"range.partial"}, nil, ExitIntegrity},
		{"Repr-Digest of decoded bytes", []server.Option{server.WithDecodedReprDigest()}, nil, []string{"encoding.repr-digest"}, nil, ExitIntegrity},
		{"trailer digests", []server.Option{server.WithTrailerDigests()}, nil, nil, nil, ExitOK},
		{"range ignored", []server.Option{server.WithIgnoreRange()}, nil, nil, []string{"range.partial"}, ExitOK},
		{"range ignored, --strict", []server.Option{server.WithIgnoreRange()}, []string{"--strict"}, nil, []string{"range.partial"}, ExitIntegrity},
		{"changing ETag", []server.Option{server.WithChangingETag(1)}, nil, nil, []string{"etag.consistency"}, ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			origin := servertest.New(t, checkSite, tt.opts...).URL
			code, statuses := checkJSON(t, append(tt.args, origin+"/notes.txt")...)
			if got := withStatus(statuses, "fail"); !slices.Equal(got, tt.fail) {
				t.Errorf("failed %v, want %v", got, tt.fail)
			}
			if got := withStatus(statuses, "warn"); !slices.Equal(got, tt.warn) {
				t.Errorf("warned %v, want %v", got, tt.warn)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
		})
	}
}

// TestCheckDelta: delta.226 rebuilds the representation from --base or
// from the hdig cache.
func TestCheckDelta(t *testing.T) {
	v1 := strings.Repeat("version one of a file that changes a little\n", 200)
	v2 := strings.Replace(v1, "one", "two", 3)
	h, err := delta.New(t.TempDir(), delta.DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := servertest.WriteFiles(t, map[string]string{"f.txt": v1})
	origin := servertest.New(t, dir, server.WithDelta(h)).URL
	url := origin + "/f.txt"
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The version is kept by the time the response has been read whole.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	e1 := resp.Header.Get("ETag")
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "v1")
	os.WriteFile(base, []byte(v1), 0o644)
	cacheDir := t.TempDir()
	c, err := cache.Open(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(cache.Entry{URL: url, ETag: e1}, strings.NewReader(v1)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	for _, args := range [][]string{{"--base", base}, {"--cache-dir", cacheDir}} {
		code, out, _ := runHdig(t, append([]string{"check", "--base-etag", e1, url}, args...)...)
		if code != ExitOK || !strings.Contains(out, "✔ delta.226") || !strings.Contains(out, "Repr-Digest sha-256 matches") {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
}

func TestCheckUnreachable(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL + "/gone"
	ts.Close()
	code, out, _ := runHdig(t, "check", url)
	if code != ExitNetwork || !strings.Contains(out, "✖ http.status") || !strings.Contains(out, "1 unreachable") {
		t.Errorf("exit %d, want 4\n%s", code, out)
	}
}

// Over several URLs, a check that failed on an origin that was reached
// is an integrity failure: exit 1, whatever another URL's network
// failure. The unreachable URL made it exit 4, which a CI job reads as
// a network fault to retry, hiding the wrong digest.
func TestCheckFailedBeatsUnreachable(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL + "/gone"
	gone.Close()
	lying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Repr-Digest", "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:") // of empty content
		w.Write([]byte("not empty\n"))
	}))
	defer lying.Close()
	for _, urls := range [][]string{{goneURL, lying.URL + "/x"}, {lying.URL + "/x", goneURL}} {
		code, out, _ := runHdig(t, append([]string{"check"}, urls...)...)
		if code != ExitIntegrity || !strings.Contains(out, "✖ repr-digest.match") {
			t.Errorf("%v: exit %d, want 1: a check failed on the origin reached\n%s", urls, code, out)
		}
	}
}

// -m bounds the audit of an origin that drips its body a byte at a time,
// faster than any stall timeout: the gate fails, naming it.
func TestCheckMaxTime(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}))
	defer ts.Close()
	code, out, _ := runHdig(t, "check", "--timeout", "5s", "-m", "0.5", ts.URL+"/drip")
	if code != ExitIntegrity || !strings.Contains(out, "--max-time 500ms ran out") {
		t.Errorf("exit %d, want 1 naming --max-time\n%s", code, out)
	}
}

func TestCheckUsage(t *testing.T) {
	tests := [][]string{
		{"check"},
		{"check", "ftp://example.org/x"},
		{"check", "--format", "yaml", "http://127.0.0.1/"},
		{"check", "--json", "--format", "text", "http://127.0.0.1/"},
		{"check", "--base", "f", "http://127.0.0.1/"},
		{"check", "--max-body", "lots", "http://127.0.0.1/"},
		{"check", "--want", "sha-3=10", "http://127.0.0.1/"},
		{"check", "--origin", "example.org", "http://127.0.0.1/"},
		{"check", "--origin", "https://example.org/app", "http://127.0.0.1/"},
		{"check", "--accept", "crc64", "http://127.0.0.1/"},
		{"check", "-H", "novalue", "http://127.0.0.1/"},
		{"check", "--parallel", "0", "http://127.0.0.1/"},
		{"check", "-m", "-1", "http://127.0.0.1/"},
		{"check", "--max-time", "soon", "http://127.0.0.1/"},
		{"check", "--junit", "/nonexistent/dir/report.xml", "http://127.0.0.1/"},
		{"check", "--base-etag", `"v1"`, "--base", "/nonexistent/base", "http://127.0.0.1/"},
	}
	for _, args := range tests {
		if code, _, errOut := runHdig(t, args...); code != ExitUsage || errOut == "" {
			t.Errorf("hdig %s: exit %d, stderr %q; want 2 and a message", strings.Join(args, " "), code, errOut)
		}
	}
}

// TestCheckStrictJUnitAgrees: with --strict a warning fails the gate (exit
// 1), so the JUnit report a CI system shows says so: the warned check is a
// <failure>, not a passed test case beside a red job; the GitHub
// annotation is an error.
func TestCheckStrictJUnitAgrees(t *testing.T) {
	u := servertest.New(t, checkSite, server.WithIgnoreRange()).URL + "/hello.json"
	junit := filepath.Join(t.TempDir(), "report.xml")
	code, out, _ := runHdig(t, "check", "--strict", "--format", "github", "--junit", junit, u)
	if code != ExitIntegrity {
		t.Fatalf("exit %d, want 1: range.partial warned under --strict", code)
	}
	xml, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(xml), `<testsuites name="hdig check" tests="34" failures="1"`) || !strings.Contains(string(xml), `<failure message=`) {
		t.Errorf("--strict exited 1 on a warning, but the JUnit report shows no failure:\n%s", xml)
	}
	if !strings.Contains(out, "::error title=hdig check range.partial::") {
		t.Errorf("--strict exited 1 on a warning, but its GitHub annotation is not an error:\n%s", out)
	}
}
