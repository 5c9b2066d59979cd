package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/cache"
)

// fillCache stores two versions of one URL and a linked version of another.
func fillCache(t *testing.T, dir string) string {
	t.Helper()
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, v := range []struct{ etag, body string }{{`"v1"`, "version one"}, {`"v2"`, "version two"}} {
		if _, err := c.Put(cache.Entry{URL: "http://h/a", ETag: v.etag}, strings.NewReader(v.body)); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "b.iso")
	if err := os.WriteFile(file, []byte("linked"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutFile(cache.Entry{URL: "http://h/b", ETag: `"b1"`}, file, ""); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestCacheCmd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	file := fillCache(t, dir)

	code, out, errOut := runHdig(t, "cache", "ls", "--cache-dir", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != ExitOK || len(lines) != 3 {
		t.Fatalf("cache ls: exit %d, stdout %q, stderr %q; want 3 lines", code, out, errOut)
	}
	if f := strings.Split(lines[0], "\t"); len(f) != 5 || f[0] != "http://h/a" || f[1] != `"v2"` || f[2] != "11" || len(f[4]) != 12 {
		t.Errorf("first line %q, want URL, ETag \"v2\", size 11, time, sha-256 prefix", lines[0])
	}
	if !strings.HasSuffix(lines[2], "\t"+file) {
		t.Errorf("linked line %q, want it to end with %s", lines[2], file)
	}
	if !strings.Contains(errOut, "3 versions of 2 URLs") {
		t.Errorf("cache ls stderr %q, want a summary", errOut)
	}

	code, out, _ = runHdig(t, "cache", "ls", "--json", "--cache-dir", dir, "http://h/b")
	var got struct {
		Dir     string        `json:"dir"`
		Entries []cache.Entry `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != ExitOK || err != nil {
		t.Fatalf("cache ls --json: exit %d, %v: %q", code, err, out)
	}
	if got.Dir != dir || len(got.Entries) != 1 || got.Entries[0].Path != file {
		t.Errorf("cache ls --json = %+v, want the linked entry of %s", got, file)
	}

	if code, _, errOut = runHdig(t, "cache", "rm", "--cache-dir", dir, "http://h/a"); code != ExitOK || !strings.Contains(errOut, "removed 2 versions") {
		t.Errorf("cache rm: exit %d, stderr %q", code, errOut)
	}
	if code, out, _ = runHdig(t, "cache", "ls", "--cache-dir", dir); code != ExitOK || strings.Count(out, "\n") != 1 {
		t.Errorf("cache ls after rm: exit %d, %q; want one line", code, out)
	}
	if code, _, errOut = runHdig(t, "cache", "gc", "--cache-dir", dir); code != ExitOK || !strings.Contains(errOut, "removed 0 items") {
		t.Errorf("cache gc: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut = runHdig(t, "cache", "clear", "--cache-dir", dir); code != ExitOK || !strings.Contains(errOut, "cleared") {
		t.Errorf("cache clear: exit %d, stderr %q", code, errOut)
	}
	if code, out, _ = runHdig(t, "cache", "ls", "--cache-dir", dir); code != ExitOK || out != "" {
		t.Errorf("cache ls after clear: exit %d, %q; want nothing", code, out)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("clear touched the linked file: %v", err)
	}
}

func TestCachePath(t *testing.T) {
	t.Setenv("HDIG_CACHE_DIR", "/env/dir")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"cache", "path"}, "/env/dir\n"},
		{[]string{"cache", "path", "--cache-dir", "/flag/dir"}, "/flag/dir\n"},
		{[]string{"cache", "--cache-dir", "/flag/dir", "path"}, "/flag/dir\n"},
	} {
		if code, out, _ := runHdig(t, tt.args...); code != ExitOK || out != tt.want {
			t.Errorf("%v: exit %d, %q; want %q", tt.args, code, out, tt.want)
		}
	}
}

func TestCacheUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"cache", "rm"},
		{"cache", "rm", "a", "b"},
		{"cache", "gc", "extra"},
		{"cache", "ls", "a", "b"},
		{"cache", "frobnicate"},
		{"cache", "ls", "--bogus"},
	} {
		if code, _, errOut := runHdig(t, append(args, "--cache-dir", dir)...); code != ExitUsage || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want %d and a message", args, code, errOut, ExitUsage)
		}
	}
}

// TestCacheListPrintable: an origin's ETag (Go's client takes UTF-8 C1
// controls such as U+009B, CSI, in a field) and a URL are listed without
// their control characters, as every message is; --json keeps them.
func TestCacheListPrintable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	etag := "\"v\u009b31m\x1b]0;x\a\""
	if _, err := c.Put(cache.Entry{URL: "http://h/a", ETag: etag}, strings.NewReader("body")); err != nil {
		t.Fatal(err)
	}
	c.Close()
	code, out, _ := runHdig(t, "cache", "ls", "--cache-dir", dir)
	if code != ExitOK || strings.ContainsAny(out, "\u009b\x1b\a") || !strings.Contains(out, "\"v31m]0;x\"") {
		t.Errorf("cache ls: exit %d, %q: control characters listed", code, out)
	}
	code, out, _ = runHdig(t, "cache", "ls", "--json", "--cache-dir", dir)
	if code != ExitOK || !strings.Contains(out, `\u001b`) {
		t.Errorf("cache ls --json: exit %d, %q: want the ETag as stored", code, out)
	}
}
