package fetch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestLongOutputNameResumes: an output whose name is a file system's
// longest (255 bytes, here in two-byte runes) has a part and a sidecar
// whose names fit, and -C finds both: the resume fetches only what the
// part lacks.
func TestLongOutputNameResumes(t *testing.T) {
	for _, name := range []string{strings.Repeat("a", 246), strings.Repeat("é", 127) + "a"} {
		o := newTestOrigin(t, pieceTestSize)
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		interrupt(t, o, path, 4, firstPieces)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if len(e.Name()) > 255 || !OwnName(e.Name()) {
				t.Errorf("%q (%d bytes) beside the output", e.Name(), len(e.Name()))
			}
		}
		if len(ents) != 2 {
			t.Errorf("%d files beside the output, want the part and its sidecar", len(ents))
		}
		res := continueRun(t, o, path)
		data, _ := o.current()
		if want := int64(len(data) - 1<<20); res.Received != want || res.Outcome() != verify.Verified {
			t.Errorf("received %d (want %d: resumed), outcome %s", res.Received, want, res.Outcome())
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%d files left, want the output alone", len(ents))
		}
	}
}

// TestBesideNeverShared: two outputs never share one part. A name that
// fits but has the form of a name cut short (start, "~", hash) was its
// own part's name, the same as the part of the long name it was cut from:
// two -Z downloads to those two names wrote one part file, and one output
// got the other's bytes (found by the final reread).
func TestBesideNeverShared(t *testing.T) {
	long := strings.Repeat("L", 250)
	fitted := strings.TrimSuffix(filepath.Base(Beside(long, PartSuffix)), PartSuffix)
	for _, suffix := range []string{PartSuffix, SidecarSuffix} {
		if a, b := Beside(long, suffix), Beside(fitted, suffix); a == b {
			t.Errorf("%q and %q share %q", long, fitted, a)
		}
	}
	// A short name of that form (an origin's, by -O or -J) is hashed too,
	// without reading past its end.
	short := "b~0123456789abcdef0123456789abcdef"
	if got := Beside(short, PartSuffix); got == short+PartSuffix || !strings.HasPrefix(got, short) {
		t.Errorf("Beside(%q) = %q, want it followed by its own hash", short, got)
	}
	if got := Beside("plain.iso", PartSuffix); got != "plain.iso"+PartSuffix {
		t.Errorf("Beside(plain.iso) = %q", got)
	}
}
