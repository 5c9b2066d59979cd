package verify

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// appendixDLegacy is RFC 9530 Appendix D in the RFC 3230 encodings
// (rfc-notes §1.5: `sum` prints 06405, `cksum` 4013623040).
const appendixDLegacy = "SHA-512=WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==, " +
	"SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=, MD5=Sd/dVLAcvNLSq16eXua5uQ==, SHA=07CavjDP4u3/TungoUHJO/Wzr4c=, " +
	"UNIXsum=6405, UNIXcksum=4013623040, ADLER32=39990617, CRC32c=43794720"

var parseLegacyTests = []struct {
	name       string
	lines      []string
	want       []Digest // nil: field ignored
	skipped    []string // substrings of Skipped, in order
	duplicates []string
}{
	// RFC 3230 §4.3.2 examples. The SHA value has non-zero pad bits.
	{name: "RFC 3230 md5", lines: []string{"md5=HUXZLQLMuI/KZ5KDcJPcOA=="},
		want: []Digest{{"md5", mustDecodeBytes("HUXZLQLMuI/KZ5KDcJPcOA==")}}},
	{name: "RFC 3230 SHA and unixsum", lines: []string{"SHA=thvDyvhfIqlvFe+A9MYgxAfm1q5=,unixsum=30637"},
		want: []Digest{{"sha", mustDecodeBytes("thvDyvhfIqlvFe+A9MYgxAfm1q5=")}, {"unixsum", []byte{0x77, 0xad}}}},
	{name: "ADLER32 registry example", lines: []string{"ADLER32=03da0195"}, want: []Digest{{"adler", []byte{0x03, 0xda, 0x01, 0x95}}}},
	{name: "CRC32c registry example", lines: []string{"CRC32c=0a72a4df"}, want: []Digest{{"crc32c", []byte{0x0a, 0x72, 0xa4, 0xdf}}}},
	{name: "hex without leading zeros, upper case", lines: []string{"adler32=3DA0195"}, want: []Digest{{"adler", []byte{0x03, 0xda, 0x01, 0x95}}}},
	{name: "unixsum with leading zero as sum prints it", lines: []string{"UNIXsum=06405"}, want: []Digest{{"unixsum", []byte{0x19, 0x05}}}},
	{name: "unixcksum", lines: []string{"UNIXcksum=4013623040"}, want: []Digest{{"unixcksum", []byte{0xef, 0x3b, 0x07, 0x00}}}},
	{name: "unixcksum max", lines: []string{"unixcksum=4294967295"}, want: []Digest{{"unixcksum", []byte{0xff, 0xff, 0xff, 0xff}}}},
	{name: "tokens are case-insensitive", lines: []string{"sha-256=AAAA, Sha-512=AQID, uNiXsUm=1, crc32C=ff"},
		want: []Digest{{"sha-256", []byte{0, 0, 0}}, {"sha-512", []byte{1, 2, 3}}, {"unixsum", []byte{0, 1}}, {"crc32c", []byte{0, 0, 0, 0xff}}}},
	{name: "two field lines", lines: []string{"MD5=AQ==", "SHA-256=AAAA"}, want: []Digest{{"md5", []byte{1}}, {"sha-256", []byte{0, 0, 0}}}},
	{name: "whitespace and empty list elements", lines: []string{" , MD5=AQ== ,\t,SHA-256 = AAAA "}, want: []Digest{{"md5", []byte{1}}, {"sha-256", []byte{0, 0, 0}}}},
	{name: "missing padding accepted", lines: []string{"MD5=Sd/dVLAcvNLSq16eXua5uQ"}, want: []Digest{{"md5", mustDecodeBytes("Sd/dVLAcvNLSq16eXua5uQ==")}}},
	{name: "quoted value accepted", lines: []string{`SHA-256="AAAA"`}, want: []Digest{{"sha-256", []byte{0, 0, 0}}}},
	{name: "wrong length kept for Compare", lines: []string{"SHA-256=AQ=="}, want: []Digest{{"sha-256", []byte{1}}}},
	{name: "duplicate: last value wins", lines: []string{"MD5=AQ==, SHA=AA==, md5=Ag=="},
		want: []Digest{{"md5", []byte{2}}, {"sha", []byte{0}}}, duplicates: []string{"md5"}},
	{name: "duplicate across lines", lines: []string{"MD5=AQ==", "MD5=Ag==", "md5=Aw=="},
		want: []Digest{{"md5", []byte{3}}}, duplicates: []string{"md5"}},
	{name: "unknown token skipped", lines: []string{"MD4=AQ==, MD5=AQ=="},
		want: []Digest{{"md5", []byte{1}}}, skipped: []string{`member "MD4": unsupported algorithm`}},
	{name: "quoted unknown value with a comma", lines: []string{`X-Foo="a,b", MD5=AQ==`},
		want: []Digest{{"md5", []byte{1}}}, skipped: []string{`member "X-Foo": unsupported algorithm`}},
	{name: "contentMD5 skipped", lines: []string{"contentMD5=AQ==, MD5=AQ=="},
		want: []Digest{{"md5", []byte{1}}}, skipped: []string{"only allowed in Want-Digest"}},
	{name: "bad members skipped, good kept", lines: []string{"UNIXsum=abc, UNIXsum=70000, UNIXcksum=4294967296, ADLER32=123456789, CRC32c=xyz, SHA-256=!!!!, MD5=, SHA, SHA-512=AQID"},
		want: []Digest{{"sha-512", []byte{1, 2, 3}}},
		skipped: []string{
			`member UNIXsum: value "abc" is not a decimal number`,
			`member UNIXsum: value "70000" is out of range for a 16-bit checksum`,
			`member UNIXcksum: value "4294967296" is out of range for a 32-bit checksum`,
			`member ADLER32: value "123456789" is not 1 to 8 hex digits`,
			`member CRC32c: value "xyz" is not 1 to 8 hex digits`,
			`member SHA-256: value "!!!!" is not base64`,
			`member MD5: empty value`,
			`member "SHA" has no value`,
		}},
	{name: "negative decimal skipped", lines: []string{"UNIXsum=-1"}, skipped: []string{"not a decimal number"}},
	{name: "unpaddable base64 skipped", lines: []string{"MD5=AAAAA"}, skipped: []string{"is not base64"}},
	{name: "over-long value skipped", lines: []string{"SHA-256=" + strings.Repeat("A", maxLegacyValueLen+4)}, skipped: []string{"over the limit"}},
	{name: "RFC 9530 syntax is not legacy", lines: []string{"sha-256=:" + sha256Hello + ":"}, skipped: []string{"is not base64"}},
	{name: "empty field", lines: []string{""}},
}

func mustDecodeBytes(s string) []byte { return []byte(mustDecode(s)) }

func TestParseLegacyDigest(t *testing.T) {
	for _, tt := range parseLegacyTests {
		t.Run(tt.name, func(t *testing.T) {
			f := ParseLegacyDigest(tt.lines)
			if !f.Present || !f.Obsolete || f.Name != "Digest" {
				t.Fatalf("ParseLegacyDigest = %+v, want a present, obsolete Digest field", f)
			}
			if len(f.Skipped) != len(tt.skipped) {
				t.Fatalf("Skipped = %q, want %d reasons like %q", f.Skipped, len(tt.skipped), tt.skipped)
			}
			for i, s := range tt.skipped {
				if !strings.Contains(f.Skipped[i], s) {
					t.Errorf("Skipped[%d] = %q, want it to contain %q", i, f.Skipped[i], s)
				}
			}
			if tt.want == nil {
				if f.Usable() || f.Ignored == "" {
					t.Fatalf("field usable with %v, want ignored", f.Digests)
				}
				return
			}
			if !f.Usable() {
				t.Fatalf("field ignored: %s", f.Ignored)
			}
			if !reflect.DeepEqual(f.Digests, tt.want) {
				t.Errorf("Digests = %v, want %v", f.Digests, tt.want)
			}
			if !slices.Equal(f.Duplicates, tt.duplicates) {
				t.Errorf("Duplicates = %q, want %q", f.Duplicates, tt.duplicates)
			}
		})
	}
	if f := ParseLegacyDigest(nil); f.Present || f.Usable() {
		t.Errorf("ParseLegacyDigest(nil) = %+v, want absent", f)
	}
}

func TestParseLegacyDigestLimits(t *testing.T) {
	long := ParseLegacyDigest([]string{"MD5=" + strings.Repeat("A", maxFieldLen)})
	if long.Usable() || !strings.Contains(long.Ignored, "over the") {
		t.Errorf("over-long field: Ignored = %q, want the size limit", long.Ignored)
	}
	many := ParseLegacyDigest([]string{strings.Repeat("MD5=AQ==,", maxLegacyMembers+1)})
	if many.Usable() || !strings.Contains(many.Ignored, "members, over the limit") {
		t.Errorf("too many members: Ignored = %q, want the member limit", many.Ignored)
	}
	if f := ParseLegacyDigest([]string{strings.Repeat("MD5=AQ==,", maxLegacyMembers)}); !f.Usable() {
		t.Errorf("%d members: ignored: %s", maxLegacyMembers, f.Ignored)
	}
}

// Legacy values verify with Compare exactly as RFC 9530 ones do.
func TestLegacyCompare(t *testing.T) {
	tests := []struct {
		name, field, body string
		policy            Policy
		want              Outcome
	}{
		{"App. D, all eight", appendixDLegacy, bodyHelloNoLF, acceptAll(), Verified},
		{"App. D vs other content", appendixDLegacy, bodyHello, acceptAll(), Mismatched},
		{"ADLER32 Wiki", "ADLER32=03da0195", "Wiki", acceptAll(), Verified},
		{"CRC32c dog", "CRC32c=0a72a4df", "dog", acceptAll(), Verified},
		{"CRC32c dog, not accepted", "CRC32c=0a72a4df", "dog", DefaultPolicy(), Unverified},
		{"UNIXsum with LF body", "UNIXsum=35980", bodyHello, acceptAll(), Verified},
		{"UNIXcksum empty", "UNIXcksum=4294967295", "", acceptAll(), Verified},
		{"SHA-256 B.1", "SHA-256=" + sha256Hello, bodyHello, DefaultPolicy(), Verified},
		{"wrong length is a mismatch", "SHA-256=AQ==", bodyHello, DefaultPolicy(), Mismatched},
		{"skipped member does not hide a good one", "SHA-256=" + sha256Hello + ", MD5=???", bodyHello, DefaultPolicy(), Verified},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ParseLegacyDigest([]string{tt.field})
			got, checks := outcomeOf(t, f, tt.body, tt.policy)
			if got != tt.want {
				t.Errorf("outcome = %s, want %s; checks %v", got, tt.want, checks)
			}
			for _, c := range checks {
				if c.Field != LegacyDigest {
					t.Errorf("check field = %q, want Digest", c.Field)
				}
			}
		})
	}
}

func TestLegacyWarnings(t *testing.T) {
	w := ParseLegacyDigest([]string{"SHA-256=AAAA, MD4=x"}).Warnings()
	want := []string{
		`Digest member "MD4": unsupported algorithm, ignored`,
		"Digest (RFC 3230) is obsolete: the origin should send Repr-Digest (RFC 9530 §1.3)",
	}
	if !slices.Equal(w, want) {
		t.Errorf("Warnings = %q, want %q", w, want)
	}
	w = ParseLegacyDigest([]string{"MD4=x"}).Warnings()
	if len(w) != 2 || !strings.HasPrefix(w[0], "Digest ignored: ") {
		t.Errorf("Warnings = %q, want the field ignored and the member skipped", w)
	}
}

func TestFormatLegacyDigest(t *testing.T) {
	f := ParseDigestField(ReprDigest, []string{appendixD})
	if got := FormatLegacyDigest(f.Digests); got != appendixDLegacy {
		t.Errorf("FormatLegacyDigest(App. D) =\n%s\nwant\n%s", got, appendixDLegacy)
	}
	// Leading zeros are written, as the registry example has them.
	if got := FormatLegacyDigest([]Digest{{"adler", []byte{0x03, 0xda, 0x01, 0x95}}}); got != "ADLER32=03da0195" {
		t.Errorf("FormatLegacyDigest(adler) = %q, want ADLER32=03da0195", got)
	}
	// What has no legacy form is left out.
	ds := []Digest{{"sha-3", []byte{1}}, {"unixsum", []byte{1, 2, 3}}, {"adler", []byte{1}}, {"md5", nil}, {"sha", []byte{1}}}
	if got := FormatLegacyDigest(ds); got != "SHA=AQ==" {
		t.Errorf("FormatLegacyDigest(%v) = %q, want SHA=AQ==", ds, got)
	}
	if got := FormatLegacyDigest(nil); got != "" {
		t.Errorf("FormatLegacyDigest(nil) = %q, want empty", got)
	}
	// Round trip.
	back := ParseLegacyDigest([]string{appendixDLegacy})
	if !reflect.DeepEqual(back.Digests, f.Digests) {
		t.Errorf("round trip = %v, want %v", back.Digests, f.Digests)
	}
}

func TestLookupLegacy(t *testing.T) {
	for tok, want := range map[string]string{"SHA-256": "sha-256", "unixsum": "unixsum", "Adler32": "adler", "crc32C": "crc32c"} {
		if a, ok := LookupLegacy(tok); !ok || a.Key != want {
			t.Errorf("LookupLegacy(%q) = %q, %v; want %q", tok, a.Key, ok, want)
		}
	}
	if _, ok := LookupLegacy("contentMD5"); ok {
		t.Error("LookupLegacy(contentMD5) found an algorithm")
	}
}
