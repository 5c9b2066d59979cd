package verify

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

// FuzzPadByteSequences: repairing padding never turns a Dictionary that
// parses into one that does not, nor changes what it holds; and two
// Dictionaries that parse after repair still parse when joined, whatever
// their Byte Sequences' padding: one member never stops another's repair.
func FuzzPadByteSequences(f *testing.F) {
	for _, s := range [][2]string{
		{"md5=:" + md5HelloBare + ":", "sha-256=:" + sha256Empty + ":"},
		{"sha-256=:" + sha256Empty + ":", "md5=:" + md5HelloBare + ":"},
		{"a=:AA==:;p=:aGVsbA:", "b=(:aGVsbG8: :AA==:)"},
		{`a="x=:aGVsbA:"`, "b=:aGVsbA:"},
		{overPadded, appendixD},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		samePadded(t, a)
		samePadded(t, b)
		if strings.ContainsAny(a+b, "\n\r") {
			return
		}
		_, whyA := parseDict([]string{a})
		_, whyB := parseDict([]string{b})
		if whyA != "" || whyB != "" || len(a)+len(b)+2 > maxFieldLen {
			return
		}
		if _, why := parseDict([]string{a, b}); why != "" {
			t.Fatalf("%q and %q parse, joined they do not: %s", a, b, why)
		}
	})
}

// samePadded fails t when s parses as a Dictionary and its repaired form
// does not, or holds something else.
func samePadded(t *testing.T, s string) {
	t.Helper()
	padded := padByteSequences(s)
	before, err := httpsfv.UnmarshalDictionary([]string{s})
	if err != nil {
		return
	}
	after, err := httpsfv.UnmarshalDictionary([]string{padded})
	if err != nil {
		t.Fatalf("%q parses, repaired %q does not: %v", s, padded, err)
	}
	x, err1 := httpsfv.Marshal(before)
	y, err2 := httpsfv.Marshal(after)
	if x != y || (err1 == nil) != (err2 == nil) {
		t.Fatalf("%q holds %q, repaired %q holds %q", s, x, padded, y)
	}
}

// fuzzUnknownKey is a key no registry holds.
const fuzzUnknownKey = "x-hdig-unknown"

// FuzzUnknownMember: adding a member with an unknown key, whatever its
// value, never changes the verdict of the known members.
func FuzzUnknownMember(f *testing.F) {
	for _, s := range []struct{ field, extra, body string }{
		{"sha-256=:" + sha256Empty + ":", "?1", bodyHello},
		{"sha-256=:" + sha256Hello + ":", "(1 2)", bodyHello},
		{"md5=:" + md5HelloBare + ":, sha-256=:" + sha256Empty + ":", ":AA==:", bodyHello},
		{"md5=:" + md5HelloBare + ":", "tok;p=:aGVsbA:", bodyHello},
		{appendixD, `"a, b"`, bodyHelloNoLF},
	} {
		f.Add(s.field, s.extra, s.body)
	}
	f.Fuzz(func(t *testing.T, field, extra, body string) {
		if strings.Contains(field, fuzzUnknownKey) {
			return
		}
		member := fuzzUnknownKey + "=" + extra
		if _, why := parseDict([]string{member}); why != "" {
			return // not a member: the field would not parse at all
		}
		with := field + ", " + member
		if len(with) > maxFieldLen {
			return
		}
		plain := ParseDigestField(ReprDigest, []string{field})
		extended := ParseDigestField(ReprDigest, []string{with})
		if !plain.Usable() {
			return
		}
		if !extended.Usable() {
			t.Fatalf("%q usable, %q ignored: %s", field, with, extended.Ignored)
		}
		sums, _, err := Sum(strings.NewReader(body), Algorithms)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []Policy{DefaultPolicy(), {Accept: Keys()}} {
			a := Verdict{Checks: Compare(plain, sums, p)}
			b := Verdict{Checks: Compare(extended, sums, p)}
			if a.Outcome() != b.Outcome() {
				t.Fatalf("%q: %s; with %q: %s", field, a.Outcome(), member, b.Outcome())
			}
			if known := withoutKey(b.Checks, fuzzUnknownKey); !reflect.DeepEqual(a.Checks, known) {
				t.Fatalf("%q: %v; with %q: %v", field, a.Checks, member, known)
			}
			// Whatever the policy, a computed value that differs fails.
			for _, c := range a.Checks {
				if c.Actual != nil && !bytes.Equal(c.Actual, c.Expected) && a.Outcome() != Mismatched {
					t.Fatalf("%q under %v: %v differs but the outcome is %s", field, p.Accept, c, a.Outcome())
				}
			}
		}
	})
}

func withoutKey(cs []Check, key string) []Check {
	var out []Check
	for _, c := range cs {
		if c.Algorithm != key {
			out = append(out, c)
		}
	}
	return out
}
