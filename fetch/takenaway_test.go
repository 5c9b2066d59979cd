package fetch

import (
	"context"
	"errors"
	"testing"
)

// TestTakenAwayWrongBytes: a piece whose source was replaced (stolen by a
// faster one, or its mirror dropped) as it failed is not its worker's
// failure, unless its bytes were wrong: a piece failing its Content-Digest,
// or a mirror's whose trailer showed another version's Repr-Digest after
// its bytes landed (a landed mirrorSkip). Such a piece counted as taken:
// mirrorFailed never rewound it, the thief found all its bytes on disk
// (onDisk) and counted it done, and the mirror stayed in use; only the
// whole file's proof (narrow) caught the other version's bytes.
func TestTakenAwayWrongBytes(t *testing.T) {
	landed := &mirrorSkip{reason: "another version", landed: true}
	for _, c := range []struct {
		name  string
		err   error
		cause error
		want  bool
	}{
		{"done", nil, errStolen, false},
		{"cut by the steal", context.Canceled, errStolen, true},
		{"cut by the drop", errors.New("read: reset"), errDropped, true},
		{"failed on its own", errors.New("read: reset"), nil, false},
		{"Content-Digest mismatch, stolen", &pieceMismatch{}, errStolen, false},
		{"another version in the trailer, stolen", landed, errStolen, false},
		{"another version in the trailer, dropped", landed, errDropped, false},
		{"another version in the header, stolen", &mirrorSkip{reason: "another version"}, errStolen, false},
	} {
		if got := takenAway(c.err, c.cause); got != c.want {
			t.Errorf("%s: takenAway %v, want %v", c.name, got, c.want)
		}
	}
}
