package cmd

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzDispositionName: whatever Content-Disposition an origin sends, -J's
// name is one plain path segment: no separator, no dotfile, no control
// or format character (a right-to-left override shows "\u202etxt.exe" as
// "exe.txt"), no line separator, or none at all.
func FuzzDispositionName(f *testing.F) {
	for _, s := range []string{`attachment; filename="report.pdf"`, `attachment; filename="../../etc/passwd"`,
		"attachment; filename*=UTF-8''%E2%82%AC%20rates", `inline; filename=".bashrc"`, `attachment; filename="a\\b"`,
		"attachment; filename*=UTF-8''%2E%2E%2F%0Ax", `attachment; filename="C:evil"`, `attachment`, `attachment; filename="a.iso.HDIG-part"`,
		"attachment; filename*=UTF-8''%E2%80%AEtxt.exe", "attachment; filename*=UTF-8''a%E2%80%A8b%E2%80%8B"} {
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
		if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\:`) || strings.Contains(strings.ToLower(name), ".hdig-") || strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) }) >= 0 {
			t.Fatalf("%q gave unsafe name %q", v, name)
		}
	})
}
