package verify

import (
	"reflect"
	"strings"
	"testing"
)

// The fuzz targets take one string and split it at "\n" into field lines.
// Seeds come from f.Add below and from testdata/fuzz/<Name>/.

func FuzzParseDigestField(f *testing.F) {
	for _, tt := range rfcFieldTests {
		f.Add(strings.Join(tt.lines, "\n"))
	}
	for _, tt := range parseDigestFieldTests {
		f.Add(strings.Join(tt.lines, "\n"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		d := ParseDigestField(ContentDigest, lines)
		if !d.Present {
			t.Fatalf("field lines %q not present", lines)
		}
		if !d.Usable() {
			if d.Ignored == "" || d.Digests != nil {
				t.Fatalf("unusable field %+v has no reason or keeps digests", d)
			}
			return
		}
		for _, k := range d.Duplicates {
			if _, ok := d.Get(k); !ok {
				t.Fatalf("duplicate %q is not a member of %v", k, d.Digests)
			}
		}
		if d.Salvaged {
			// A field that is not a valid Dictionary keeps every member that
			// parses alone, a key given twice included (each is compared:
			// found by fuzzing, "a=::,a=::,"); each member round-trips.
			for _, m := range d.Digests {
				one := ParseDigestField(ContentDigest, []string{FormatDigests([]Digest{m})})
				if !one.Usable() || len(one.Digests) != 1 || !reflect.DeepEqual(one.Digests[0], m) {
					t.Fatalf("salvaged member %v → %+v", m, one)
				}
			}
			return
		}
		// The canonical serialization parses back to the same members, once
		// each, unless the padding and ", " it adds take it over the size
		// limit (found by fuzzing: a 16384-byte field without padding).
		canon := FormatDigests(d.Digests)
		back := ParseDigestField(ContentDigest, []string{canon})
		if len(canon) > maxFieldLen {
			if back.Usable() {
				t.Fatalf("%d-byte canonical form is usable, want over the limit", len(canon))
			}
			return
		}
		if !back.Usable() || !reflect.DeepEqual(back.Digests, d.Digests) || back.Duplicates != nil {
			t.Fatalf("%q → %v → %q → %+v", s, d.Digests, canon, back)
		}
	})
}

func FuzzParseWantField(f *testing.F) {
	for _, tt := range wantFieldTests {
		f.Add(strings.Join(tt.lines, "\n"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		w := ParseWantField(WantContentDigest, lines)
		if !w.Present {
			t.Fatalf("field lines %q not present", lines)
		}
		if w.Ignored != "" {
			if w.Prefs != nil {
				t.Fatalf("ignored field %+v keeps preferences", w)
			}
			return
		}
		for _, p := range w.Prefs {
			if p.Weight < 0 || p.Weight > 10 {
				t.Fatalf("weight %d out of range in %+v", p.Weight, w)
			}
		}
		canon := FormatWant(w.Prefs)
		back := ParseWantField(WantContentDigest, []string{canon})
		if len(canon) > maxFieldLen {
			if back.Ignored == "" {
				t.Fatalf("%d-byte canonical form accepted, want over the limit", len(canon))
			}
			return
		}
		if back.Ignored != "" || !reflect.DeepEqual(back.Prefs, w.Prefs) {
			t.Fatalf("%q → %v → %q → %+v", s, w.Prefs, canon, back)
		}
		for _, a := range Choose(w.Prefs, "sha-256") {
			if _, ok := Lookup(a.Key); !ok {
				t.Fatalf("Choose returned unregistered %q", a.Key)
			}
		}
	})
}

func FuzzParseLegacyDigest(f *testing.F) {
	for _, tt := range parseLegacyTests {
		f.Add(strings.Join(tt.lines, "\n"))
	}
	f.Add(appendixDLegacy)
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		d := ParseLegacyDigest(lines)
		if !d.Present || !d.Obsolete {
			t.Fatalf("field lines %q: %+v, want present and obsolete", lines, d)
		}
		if !d.Usable() {
			if d.Ignored == "" {
				t.Fatalf("unusable field %+v has no reason", d)
			}
			return
		}
		for _, x := range d.Digests {
			if _, ok := Lookup(x.Algorithm); !ok {
				t.Fatalf("unregistered key %q in %v", x.Algorithm, d.Digests)
			}
		}
		for _, k := range d.Duplicates {
			if _, ok := d.Get(k); !ok {
				t.Fatalf("duplicate %q is not a member of %v", k, d.Digests)
			}
		}
		legacy := FormatLegacyDigest(d.Digests)
		back := ParseLegacyDigest([]string{legacy})
		if !back.Usable() || !reflect.DeepEqual(back.Digests, d.Digests) || back.Skipped != nil || back.Duplicates != nil {
			t.Fatalf("%q → %v → %q → %+v", s, d.Digests, legacy, back)
		}
		// Legacy values carry over to the RFC 9530 syntax.
		sf := ParseDigestField(ReprDigest, []string{FormatDigests(d.Digests)})
		if !reflect.DeepEqual(sf.Digests, d.Digests) {
			t.Fatalf("%v → %q → %v", d.Digests, FormatDigests(d.Digests), sf.Digests)
		}
	})
}
