package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// -d @FILE (and -d @-) drops the file's carriage returns and line feeds,
// as curl's -d does: a form saved by an editor ends in a line break that
// curl never sends. --data-binary sends the file as it is.
func TestDataFileDropsLineBreaks(t *testing.T) {
	file := filepath.Join(t.TempDir(), "form.txt")
	os.WriteFile(file, []byte("a=1\r\nb=2\n"), 0o644)
	for _, tt := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"-d", "@" + file}, "a=1b=2"},
		{"", []string{"-d", "@" + file, "-d", "c=3"}, "a=1b=2&c=3"},
		{"x=1\r\n", []string{"-d", "@-"}, "x=1"},
		{"", []string{"--data-binary", "@" + file}, "a=1\r\nb=2\n"},
	} {
		srv, seen := seeingOrigin(t, nil)
		code, _, errOut := runHdigIn(t, tt.stdin, append(append([]string{"get", "-s", "--no-cache"}, tt.args...), srv.URL+"/form")...)
		if last := seen.last(t); code != 0 || string(last.Body) != tt.want {
			t.Errorf("%v: exit %d, body %q, want %q: %s", tt.args, code, last.Body, tt.want, errOut)
		}
	}
}
