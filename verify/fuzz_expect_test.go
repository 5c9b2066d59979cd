package verify

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseExpected: what a user pastes never panics, and every digest
// read has its algorithm's length and formats back to itself.
func FuzzParseExpected(f *testing.F) {
	for _, tt := range parseExpectedTests {
		f.Add(tt.in, tt.alg)
	}
	f.Fuzz(func(t *testing.T, s, alg string) {
		es, err := ParseExpected(s, alg)
		if err != nil {
			return
		}
		if len(es) == 0 || len(es) > maxExpectTokens+8 {
			t.Fatalf("ParseExpected(%q) = %d digests", s, len(es))
		}
		for _, e := range es {
			a, ok := Find(e.Algorithm)
			if !ok || len(e.Value) != a.Size {
				t.Fatalf("ParseExpected(%q) gave %s of %d bytes", s, e.Algorithm, len(e.Value))
			}
			if sri := FormatSRI(e.Digest); sri != "" {
				back, err := ParseExpected(sri, "")
				if err != nil || !bytes.Equal(back[0].Value, e.Value) {
					t.Fatalf("FormatSRI %q does not parse back: %v", sri, err)
				}
			}
		}
	})
}

// FuzzChecksumEntries: a checksum file never panics, and an entry found
// has the name looked up and its algorithm's length.
func FuzzChecksumEntries(f *testing.F) {
	for _, tt := range checksumEntriesTests {
		if len(tt.file) < 4096 {
			f.Add(tt.file, strings.Join(tt.names, "\n"), tt.alg)
		}
	}
	f.Fuzz(func(t *testing.T, file, names, alg string) {
		ns := strings.Split(names, "\n")
		es, err := ChecksumEntries([]byte(file), ns, alg)
		if err != nil {
			return
		}
		for _, e := range es {
			a, ok := Find(e.Digest.Algorithm)
			if !ok || len(e.Digest.Value) != a.Size {
				t.Fatalf("entry %+v has a bad algorithm or length", e)
			}
			hit := false
			for _, n := range ns {
				hit = hit || sameName(e.Name, n) || sameBase(e.Name, n)
			}
			if !hit {
				t.Fatalf("entry %q matches none of %q", e.Name, ns)
			}
		}
	})
}

// FuzzForeignFields: origin fields outside RFC 9530 never panic; a usable
// field's digests name an algorithm hdig computes (a value of the wrong
// length is kept, for Compare to fail).
func FuzzForeignFields(f *testing.F) {
	for _, tt := range foreignFieldsTests {
		f.Add(strings.Join(tt.header, "\n"))
	}
	f.Add("Content-MD5: 1B2M2Y8AsgTpgAmY7PhCfg==\nUnencoded-Digest: sha-256=:AAAA:")
	f.Fuzz(func(t *testing.T, s string) {
		h := foreignHeader(strings.Split(s, "\n")...)
		fs := append(ForeignFields(h), ParseContentMD5(h))
		for _, fl := range fs {
			if !fl.Present {
				continue
			}
			if fl.Ignored == "" && len(fl.Digests) == 0 {
				t.Fatalf("%s usable without digests: %+v", fl.Name, fl)
			}
			for _, d := range fl.Digests {
				if _, ok := Find(d.Algorithm); !ok || len(d.Value) == 0 {
					t.Fatalf("%s: %s of %d bytes", fl.Name, d.Algorithm, len(d.Value))
				}
			}
		}
	})
}
