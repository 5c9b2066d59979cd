package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hdig sum --format prints what sha256sum and openssl print, and what get
// --expect reads back.
func TestSumFormatInterop(t *testing.T) {
	sha256sum, openssl := tool(t, "sha256sum"), tool(t, "openssl")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.js"), []byte("console.log('integrity')\n"), 0o644)
	t.Chdir(dir)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "hex", "f.js"}, run(t, dir, sha256sum, "f.js")},
		{[]string{"--format", "sri", "-a", "sha-384", "f.js"}, "f.js: sha384-" + strings.TrimSpace(run(t, dir, "sh", "-c", openssl+" dgst -sha384 -binary f.js | "+openssl+" base64 -A")) + "\n"},
		{[]string{"--format", "oci", "f.js"}, "f.js: sha256:" + strings.Fields(run(t, dir, sha256sum, "f.js"))[0] + "\n"},
	} {
		code, out, errOut := runHdig(t, append([]string{"sum"}, tt.args...)...)
		if code != 0 || out != tt.want {
			t.Errorf("sum %v: exit %d, %q, want %q: %s", tt.args, code, out, tt.want, errOut)
		}
	}
}

func TestSumFormat(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("hello"), 0o644)
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--format", "sri", "-a", "sha-256,sha-512", f}, 0, f + ": sha256-LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ= sha512-m3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw==\n"},
		{[]string{"--format", "rfc9530", f}, 0, f + ": sha-256=:LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=:\n"},
		{[]string{"--format", "hex", filepath.Join(dir, "a\nb")}, 2, ""},
		{[]string{"--format", "sri", "-a", "md5", f}, 2, ""},
		{[]string{"--format", "hex", "-a", "sha-256,md5", f}, 2, ""},
		{[]string{"--format", "base32", f}, 2, ""},
		{[]string{"--format", "sri", "-c", f}, 2, ""},
	} {
		code, out, errOut := runHdig(t, append([]string{"sum"}, tt.args...)...)
		if code != tt.code || out != tt.want {
			t.Errorf("sum %q: exit %d, %q, want %d, %q: %s", tt.args, code, out, tt.code, tt.want, errOut)
		}
	}
	if got := hexSumLine("ab", "a\nb"); got != `\ab  a\nb` {
		t.Errorf("hexSumLine escapes %q, want coreutils' form", got)
	}
}
