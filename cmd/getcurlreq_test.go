package cmd

import (
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestGetRequestFlagsLikeCurl sends the same command lines with hdig and
// curl and compares what the origin saw: method, request target, the
// fields curl's flags set, and the body.
func TestGetRequestFlagsLikeCurl(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "note.txt")
	os.WriteFile(file, []byte("a b&c=d\n"), 0o644)
	form := filepath.Join(dir, "form.txt") // no line break, which curl's -d @FILE would drop
	os.WriteFile(form, []byte("x=1&y=2"), 0o644)
	srv, seen := seeingOrigin(t, nil)
	cases := [][]string{
		{"-A", "agent/1.0", "-e", "http://ref.example/", srv.URL + "/a"},
		{"-u", "alice:s3 cret", srv.URL + "/auth"},
		{"-G", "-d", "q=1", "--data-urlencode", "name=a b&c", srv.URL + "/search?x=y"},
		{"-d", "k=v", "--data-urlencode", "=é é", "--data-urlencode", "f@" + file, srv.URL + "/post"},
		{"--data-urlencode", "plain text", srv.URL + "/post"},
		{"-d", "@" + form, "-d", "k=v", srv.URL + "/post"},
		{"-G", srv.URL + "/nodata"},
	}
	fields := []string{"User-Agent", "Referer", "Authorization", "Content-Type"}
	for _, args := range cases {
		seen.reset()
		if code, _, stderr := runHdig(t, append([]string{"get", "-s"}, args...)...); code != 0 {
			t.Fatalf("hdig %v: exit %d: %s", args, code, stderr)
		}
		got := seen.last(t)
		seen.reset()
		runCurl(t, args...)
		want := seen.last(t)
		if got.Method != want.Method || got.URI != want.URI || string(got.Body) != string(want.Body) {
			t.Errorf("%v: hdig sent %s %s %q, curl %s %s %q", args, got.Method, got.URI, got.Body, want.Method, want.URI, want.Body)
		}
		for _, f := range fields {
			if f == "User-Agent" && want.Header.Get(f) != "agent/1.0" {
				continue // curl's default agent is its own
			}
			if got.Header.Get(f) != want.Header.Get(f) {
				t.Errorf("%v: %s: hdig %q, curl %q", args, f, got.Header.Get(f), want.Header.Get(f))
			}
		}
	}
}

// TestGetUserNeedsPassword: hdig does not prompt; -u USER alone is a
// usage error, and -H Authorization wins over -u as in curl.
func TestGetUserFlag(t *testing.T) {
	srv, seen := seeingOrigin(t, nil)
	if code, _, stderr := runHdig(t, "get", "-u", "alice", srv.URL+"/"); code != ExitUsage || !strings.Contains(stderr, "USER:PASSWORD") {
		t.Fatalf("-u alice: exit %d, %q; want 2 naming USER:PASSWORD", code, stderr)
	}
	if code, _, _ := runHdig(t, "get", "-s", "-u", "a:b", "-H", "Authorization: Bearer t", srv.URL+"/"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := seen.last(t).Header.Values("Authorization"); len(got) != 1 || got[0] != "Bearer t" {
		t.Errorf("Authorization = %q, want only -H's", got)
	}
	runHdig(t, "get", "-s", "-u", "a:b", srv.URL+"/")
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("a:b"))
	if got := seen.last(t).Header.Get("Authorization"); got != want {
		t.Errorf("Authorization = %q, want %q", got, want)
	}
}

// TestGetUserNotSentAfterRedirect: -u's credentials follow the origin
// rule of the one RoundTripper: a redirect to another origin (here another
// port of the same host) gets none.
func TestGetUserNotSentAfterRedirect(t *testing.T) {
	other, seenOther := seeingOrigin(t, nil)
	first, seenFirst := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/there", http.StatusFound)
	})
	code, _, stderr := runHdig(t, "get", "-s", "-L", "-u", "alice:pw", "-b", "sid=1", first.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if h := seenFirst.last(t).Header; h.Get("Authorization") == "" || h.Get("Cookie") != "sid=1" {
		t.Fatalf("the first origin saw no credentials: %v", h)
	}
	if h := seenOther.last(t).Header; h.Get("Authorization") != "" || h.Get("Cookie") != "" {
		t.Errorf("the redirect's target got the credentials: Authorization %q, Cookie %q", h.Get("Authorization"), h.Get("Cookie"))
	}
}

// TestGetForm: -F's parts as curl writes them (names, file names, types,
// contents), and the whole body carries its Content-Digest.
func TestGetForm(t *testing.T) {
	dir := t.TempDir()
	up := filepath.Join(dir, "up.bin")
	os.WriteFile(up, []byte("\x00\x01upload"), 0o644)
	val := filepath.Join(dir, "val.txt")
	os.WriteFile(val, []byte("from file"), 0o644)
	srv, seen := seeingOrigin(t, nil)
	args := []string{"-F", "a=1", "-F", "file=@" + up + ";type=image/png", "-F", "v=<" + val, "-F", "f2=@" + up + ";filename=x.dat", srv.URL + "/form"}
	if code, _, stderr := runHdig(t, append([]string{"get", "-s"}, args...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := seen.last(t)
	sum, _, _ := verify.Sum(strings.NewReader(string(got.Body)), []verify.Algorithm{mustAlg(t, "sha-256")})
	if want := "sha-256=:" + verify.Base64(sum[0].Value) + ":"; got.Header.Get("Content-Digest") != want {
		t.Errorf("Content-Digest %q, want %q over the whole body", got.Header.Get("Content-Digest"), want)
	}
	seen.reset()
	runCurl(t, args...)
	want := seen.last(t)
	if g, w := formParts(t, got), formParts(t, want); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("parts differ:\nhdig %q\ncurl %q", g, w)
	}
}

func mustAlg(t *testing.T, name string) verify.Algorithm {
	t.Helper()
	algs, err := verify.ParseList(name)
	if err != nil || len(algs) != 1 {
		t.Fatalf("algorithm %s: %v", name, err)
	}
	return algs[0]
}

// formParts lists a multipart/form-data request's parts.
func formParts(t *testing.T, r seenRequest) []string {
	t.Helper()
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("Content-Type %q", r.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(strings.NewReader(string(r.Body)), params["boundary"])
	var out []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("multipart: %v", err)
		}
		b, _ := io.ReadAll(p)
		out = append(out, p.FormName()+"|"+p.FileName()+"|"+p.Header.Get("Content-Type")+"|"+string(b))
	}
}

func TestGetRequestFlagErrors(t *testing.T) {
	srv, _ := seeingOrigin(t, nil)
	for _, args := range [][]string{
		{"-F", "noequals", srv.URL},
		{"-F", "a=@/nonexistent/file", srv.URL},
		{"-F", "a=1", "-d", "b=2", srv.URL},
		{"-G", "--data-binary", "x", srv.URL},
		{"--data-urlencode", "@/nonexistent", srv.URL},
		{"-b", "/nonexistent/cookies", srv.URL},
	} {
		code, _, stderr := runHdig(t, append([]string{"get"}, args...)...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line", args, code, stderr)
		}
	}
}
