package fetch

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFitName: whatever name an origin picks (-O's URL path, -J's
// Content-Disposition), FitName never panics, keeps a name that fits and
// has not the form of a cut one, and otherwise gives a name of at most
// room bytes (room leaves space for the tag), valid UTF-8 when the name
// was, that has the cut form itself: no name that is kept can equal it.
func FuzzFitName(f *testing.F) {
	f.Add("plain.iso", 241)
	f.Add(strings.Repeat("é", 127)+"a", 241)
	f.Add("b~0123456789abcdef0123456789abcdef", 241)
	f.Add(strings.Repeat("L", 250), 241)
	f.Fuzz(func(t *testing.T, name string, room int) {
		if room < 1+2*fitHash || room > 4096 {
			return
		}
		got := FitName(name, room)
		if len(name) <= room && !fitted(name) {
			if got != name {
				t.Fatalf("FitName(%q, %d) = %q, want it kept", name, room, got)
			}
			return
		}
		if len(got) > room || !fitted(got) {
			t.Fatalf("FitName(%q, %d) = %q (%d bytes): want at most %d bytes, in cut form", name, room, got, len(got), room)
		}
		if utf8.ValidString(name) && !utf8.ValidString(got) {
			t.Fatalf("FitName(%q, %d) = %q: not UTF-8", name, room, got)
		}
	})
}
