package cmd

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"testing"

	"github.com/hdig/hdig/verify"
)

// FuzzSumLineReadBack: the line hdig sum prints for any file name is read
// back by sum -c (parseCheckLine) as the line of that file ("./" before
// the name allowed, listName's prefix) with the digests printed, never as
// another file's or a comment. Seeds in testdata/fuzz/FuzzSumLineReadBack.
func FuzzSumLineReadBack(f *testing.F) {
	for _, name := range []string{"a", "#hash", "x: y", `a\b`, "a\nb\r", " *x", "SHA256 (x) = 00", "-"} {
		f.Add(name, []byte("content"))
	}
	f.Fuzz(func(t *testing.T, name string, content []byte) {
		if name == "" {
			return
		}
		s256, s512 := sha256.Sum256(content), sha512.Sum512(content)
		ds := []verify.Digest{{Algorithm: "sha-256", Value: s256[:]}, {Algorithm: "sha-512", Value: s512[:]}}
		line := formatRFC9530.line(name, ds, false)
		if bytes.ContainsAny([]byte(line), "\n\r") || line[0] == '#' {
			t.Fatalf("name %q printed as %q: not one line -c reads", name, line)
		}
		got, field, err := parseCheckLine(line)
		if err != nil {
			t.Fatalf("name %q printed as %q: -c reads %v", name, line, err)
		}
		if got != name && got != "./"+name {
			t.Fatalf("name %q printed as %q: -c reads the name %q", name, line, got)
		}
		if len(field.Digests) != len(ds) {
			t.Fatalf("name %q printed as %q: -c reads %d digests", name, line, len(field.Digests))
		}
		for i, d := range field.Digests {
			if d.Algorithm != ds[i].Algorithm || !bytes.Equal(d.Value, ds[i].Value) {
				t.Fatalf("name %q printed as %q: -c reads digest %d as %s", name, line, i, d.Algorithm)
			}
		}
	})
}
