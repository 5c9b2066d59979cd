package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// --data-binary's body is typed application/x-www-form-urlencoded, as
// -d's is and as curl types both, unless -H gives a Content-Type; -T's
// is not typed.
func TestDataBinaryContentType(t *testing.T) {
	file := filepath.Join(t.TempDir(), "up.bin")
	os.WriteFile(file, []byte("abc"), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-binary", "abc"}, "application/x-www-form-urlencoded"},
		{[]string{"--data-binary", "@" + file}, "application/x-www-form-urlencoded"},
		{[]string{"--data-binary", "abc", "-H", "Content-Type: application/json"}, "application/json"},
		{[]string{"-d", "abc"}, "application/x-www-form-urlencoded"},
		{[]string{"-T", file}, ""},
	} {
		srv, seen := seeingOrigin(t, nil)
		code, _, errOut := runHdig(t, append(append([]string{"get", "-s", "--no-cache"}, tt.args...), srv.URL+"/up")...)
		if got := seen.last(t).Header.Get("Content-Type"); code != 0 || got != tt.want {
			t.Errorf("%v: exit %d, Content-Type %q, want %q: %s", tt.args, code, got, tt.want, errOut)
		}
	}
}
