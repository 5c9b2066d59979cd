package cmd

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// forged reports what in a message on stderr a hostile origin could use
// on a terminal: a control character (ESC of an escape sequence, BEL, a
// CR that returns to the line's start) or a line break that starts a
// second line of its own, such as a fake "✔ verified".
func forged(s string) string {
	s = strings.TrimSuffix(s, "\n")
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fmt.Sprintf("control character %U", r)
		}
	}
	return ""
}

// TestHostileTextErrorLine: the one-line error of hdig get names what a
// hostile file said (a zsync control file's header key, a checksum file's
// escaped file name); a terminal escape, a CR or a
// line break in it reached the terminal as sent, where "✔ verified" on a
// line of its own forged a verdict. The error line is made printable.
func TestHostileTextErrorLine(t *testing.T) {
	bodies := map[string]string{
		"/twice.zsync": "zsync: 0.6.2\nX\x1b]0;pwned\x07: 1\nX\x1b]0;pwned\x07: 1\n\n",
		"/name.sums":   "\\SHA256 (f\\n✔ verified Repr-Digest sha-256\x1b[K) = ab\n",
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, ok := bodies[r.URL.Path]; ok {
			w.Write([]byte(b))
			return
		}
		w.Write([]byte("hello\n"))
	}))
	defer ts.Close()
	out := t.TempDir() + "/f"
	for _, args := range [][]string{
		{"--zsync", ts.URL + "/twice.zsync"},
		{"--checksum-file", ts.URL + "/name.sums", ts.URL + "/f"},
	} {
		code, _, errOut := runHdig(t, append([]string{"get", "--no-cache", "-o", out}, args...)...)
		if code == ExitOK || errOut == "" {
			t.Errorf("%v: exit %d, %q; want a failure and its message", args, code, errOut)
			continue
		}
		if why := forged(errOut); why != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: stderr %q: %s, want one printable line", args, errOut, why)
		}
	}
}

// TestHostileTextCheckOutput: hdig check's table and its GitHub workflow
// commands quote in a check's message what the origin's control file said
// (its header key); an escape sequence in it reached the terminal, and a
// line break started a line of its own in the table: a fake "✔" row, and
// in --format github's ::group:: a workflow command ("::error::…",
// "::add-mask::") of the origin's choosing. Messages are written printable.
func TestHostileTextCheckOutput(t *testing.T) {
	ctl := "zsync: 0.6.2\nX\x1b]0;pwned\x07\r  ✔ zsync.control  fine: 1\nX\x1b]0;pwned\x07\r  ✔ zsync.control  fine: 1\n\n"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/f.zsync" {
			w.Write([]byte(ctl))
			return
		}
		w.Header().Set("Link", `</f.zsync>; rel="describedby"; type="application/x-zsync"`)
		w.Write([]byte("hello\n"))
	}))
	defer ts.Close()
	for _, format := range []string{"text", "github"} {
		_, out, _ := runHdig(t, "check", "--format", format, ts.URL+"/f")
		if !strings.Contains(out, "zsync.control") {
			t.Fatalf("%s: %q: want the zsync.control row", format, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if why := forged(line); why != "" {
				t.Errorf("%s: line %q: %s", format, line, why)
			}
		}
	}
}
