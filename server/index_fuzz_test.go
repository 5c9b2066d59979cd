package server

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzIndexLine reads any line as an entry of the digest index in
// --state-dir: either it is refused, or it gives a 32-byte sha-256 and a
// strong file identity for a name, which written back read back the same.
func FuzzIndexLine(f *testing.F) {
	f.Add("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 0 1700000000000000000 1700000000000000000 2049 131 \"a.txt\"")
	f.Add("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 -1 0 0 0 0 \"\"")
	f.Add("zz 1 2 3 4 5 \"dir/with space\\n.txt\"")
	f.Fuzz(func(t *testing.T, line string) {
		k, sum, ok := parseIndexLine(line)
		if !ok {
			return
		}
		if len(sum) != 32 || !k.id.Strong() || k.name == "" {
			t.Fatalf("kept sum %x, identity %+v, name %q", sum, k.id, k.name)
		}
		again := formatIndexLine(k, sum)
		k2, sum2, ok := parseIndexLine(strings.TrimSuffix(again, "\n"))
		if !ok || k2 != k || !bytes.Equal(sum2, sum) {
			t.Fatalf("written back %q, read back %+v %x %v", again, k2, sum2, ok)
		}
	})
}
