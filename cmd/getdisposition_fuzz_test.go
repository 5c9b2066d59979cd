package cmd

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzDispositionName: whatever Content-Disposition an origin sends, -J's
// name is one plain path segment: no separator, no dotfile, no control
// character, or none at all.
func FuzzDispositionName(f *testing.F) {
	for _, s := range []string{`attachment; filename="report.pdf"`, `attachment; filename="../../etc/passwd"`,
		"attachment; filename*=UTF-8''%E2%82%AC%20rates", `inline; filename=".bashrc"`, `attachment; filename="a\\b"`,
		"attachment; filename*=UTF-8''%2E%2E%2F%0Ax", `attachment; filename="C:evil"`, `attachment`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		name, ok := dispositionName(v)
		if !ok {
			if name != "" {
				t.Fatalf("refused %q but named %q", v, name)
			}
			return
		}
		if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\:`) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
			t.Fatalf("%q gave unsafe name %q", v, name)
		}
	})
}
