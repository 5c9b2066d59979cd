package verify

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// rfcFieldTests runs every Integrity field value of RFC 9530 (rfc-notes §2)
// against the content it was computed over. The published defects of §2.15
// are expected failures.
var rfcFieldTests = []struct {
	name    string
	field   string
	lines   []string
	body    string
	ignored string // substring of the reason the field is ignored, "" if usable
	want    Outcome
}{
	{"§2 sha-512", ContentDigest, []string{"sha-512=:" + sha512Hello + ":"}, bodyHello, "", Verified},
	// Defect 2: the two members were computed over different contents, so
	// "any accepted mismatch fails" fails it for either content.
	{"§2 two members vs body", ContentDigest, []string{"sha-256=:" + sha256Brotli + ":,sha-512=:" + sha512Hello + ":"}, bodyHello, "", Mismatched},
	{"§2 two members vs brotli", ContentDigest, []string{"sha-256=:" + sha256Brotli + ":,sha-512=:" + sha512Hello + ":"}, brotliFixed, "", Mismatched},
	{"B.1 Content-Digest", ContentDigest, []string{"sha-256=:" + sha256Hello + ":"}, bodyHello, "", Verified},
	{"B.1 Repr-Digest", ReprDigest, []string{"sha-256=:" + sha256Hello + ":"}, bodyHello, "", Verified},
	{"B.2 HEAD Content-Digest of empty content", ContentDigest, []string{"sha-256=:" + sha256Empty + ":"}, "", "", Verified},
	{"B.3 206 Content-Digest", ContentDigest, []string{"sha-256=:jjcgBDWNAtbYUXI37CVG3gRuGOAjaaDRGpIUFsdyepQ=:"}, bodyRange, "", Verified},
	{"B.3 206 Repr-Digest of the whole", ReprDigest, []string{"sha-256=:" + sha256Hello + ":"}, bodyHello, "", Verified},
	{"B.4 request", ReprDigest, []string{"sha-256=:" + sha256Hello + ":"}, bodyHello, "", Verified},
	// Defect 1: the printed Brotli bytes are not what the digest covers.
	{"B.4 response vs published body", ReprDigest, []string{"sha-256=:" + sha256Brotli + ":"}, brotliPublished, "", Mismatched},
	{"B.4 response vs corrected body", ReprDigest, []string{"sha-256=:" + sha256Brotli + ":"}, brotliFixed, "", Verified},
	// Defect 3: over-padded byte sequences fail to parse: field ignored.
	{"B.5 request over-padded", ReprDigest, []string{overPadded}, bodyHello, "not a valid structured-field dictionary", Unverified},
	{"B.5 response", ReprDigest, []string{"sha-256=:" + sha256Brotli + ":"}, brotliFixed, "", Verified},
	{"B.6 request over-padded", ReprDigest, []string{overPadded}, bodyHello, "not a valid structured-field dictionary", Unverified},
	{"B.6 response vs published body", ReprDigest, []string{"sha-256=:" + sha256Brotli + ":,sha-512=:" + sha512Brotli + ":"}, brotliPublished, "", Mismatched},
	{"B.6 response vs corrected body", ReprDigest, []string{"sha-256=:" + sha256Brotli + ":,sha-512=:" + sha512Brotli + ":"}, brotliFixed, "", Verified},
	{"B.7 request", ReprDigest, []string{"sha-256=:mEkdbO7Srd9LIOegftO0aBX+VPTVz7/CSHes2Z27gc4=:"}, bodyTitle, "", Verified},
	{"B.7 response", ReprDigest, []string{"sha-256=:uVSlinTTdQUwm2On4k8TJUikGN1bf/Ds8WPX4oe0h9I=:"}, bodyBook, "", Verified},
	{"B.8 response", ReprDigest, []string{"sha-256=:yXIGDTN5VrfoyisKlXgRKUHHMs35SNtyC3szSz1dbO8=:"}, bodyStatus, "", Verified},
	{"B.9 request", ReprDigest, []string{"sha-256=:mEkdbO7Srd9LIOegftO0aBX+VPTVz7/CSHes2Z27gc4=:"}, bodyTitle, "", Verified},
	{"B.9 response", ReprDigest, []string{"sha-256=:uVSlinTTdQUwm2On4k8TJUikGN1bf/Ds8WPX4oe0h9I=:"}, bodyBook, "", Verified},
	{"B.10 404", ReprDigest, []string{"sha-256=:EXB0S2VF2H7ijkAVJkH1Sm0pBho0iDZcvVUHHXTTZSA=:"}, bodyNotFound, "", Verified},
	{"B.11 trailer over-padded", ReprDigest, []string{overPadded}, bodyHello, "not a valid structured-field dictionary", Unverified},
	{"C.1 response over-padded", ReprDigest, []string{overPadded}, bodyHello, "not a valid structured-field dictionary", Unverified},
	{"C.2 response", ReprDigest, []string{"sha-512=:" + sha512Hello + ":"}, bodyHello, "", Verified},
	{"App. D all eight", ReprDigest, []string{appendixD}, bodyHelloNoLF, "", Verified},
	{"App. D all eight vs body with LF", ReprDigest, []string{appendixD}, bodyHello, "", Mismatched},
}

func TestParseDigestFieldRFCExamples(t *testing.T) {
	for _, tt := range rfcFieldTests {
		t.Run(tt.name, func(t *testing.T) {
			f := ParseDigestField(tt.field, tt.lines)
			if !f.Present || f.Name != tt.field {
				t.Fatalf("ParseDigestField = %+v, want present %s", f, tt.field)
			}
			if tt.ignored != "" {
				if f.Usable() || !strings.Contains(f.Ignored, tt.ignored) {
					t.Fatalf("Ignored = %q, want it to contain %q", f.Ignored, tt.ignored)
				}
				if len(f.Warnings()) == 0 {
					t.Error("no warning for an ignored field")
				}
			} else if !f.Usable() {
				t.Fatalf("field ignored: %s", f.Ignored)
			}
			got, checks := outcomeOf(t, f, tt.body, acceptAll())
			if got != tt.want {
				t.Errorf("outcome = %s, want %s; checks %v", got, tt.want, checks)
			}
		})
	}
}

// The over-padded value is the only defect in it: one "=" less parses, and
// decodes to the B.1 digest.
func TestOverPaddedCorrected(t *testing.T) {
	fixed := strings.Replace(overPadded, "==:", "=:", 1)
	f := ParseDigestField(ReprDigest, []string{fixed})
	if v, _ := f.Get("sha-256"); !bytes.Equal(v, mustB64(t, sha256Hello)) {
		t.Fatalf("Get(sha-256) = %x, want the B.1 digest", v)
	}
}

var parseDigestFieldTests = []struct {
	name       string
	lines      []string
	want       []Digest // nil: ignored
	ignored    string   // substring of the reason
	duplicates []string
	salvaged   bool // not a valid Dictionary: want holds the members read alone
}{
	{name: "absent", lines: nil},
	{name: "empty value", lines: []string{""}, ignored: "empty dictionary"},
	{name: "spaces only", lines: []string{"   "}, ignored: "empty dictionary"},
	{name: "single", lines: []string{"sha-256=:AAAA:"}, want: []Digest{{"sha-256", []byte{0, 0, 0}}}},
	{name: "two lines", lines: []string{"sha-256=:AAAA:", "sha-512=:AQID:"},
		want: []Digest{{"sha-256", []byte{0, 0, 0}}, {"sha-512", []byte{1, 2, 3}}}},
	{name: "no whitespace after comma", lines: []string{"sha-256=:AAAA:,sha-512=:AQID:"},
		want: []Digest{{"sha-256", []byte{0, 0, 0}}, {"sha-512", []byte{1, 2, 3}}}},
	{name: "duplicate: last value wins, first position kept", lines: []string{"sha-256=:AAAA:, sha-512=:AQID:, sha-256=:/w==:"},
		want: []Digest{{"sha-256", []byte{0xff}}, {"sha-512", []byte{1, 2, 3}}}, duplicates: []string{"sha-256"}},
	{name: "duplicate across field lines", lines: []string{"sha-256=:AAAA:", "sha-256=:/w==:"},
		want: []Digest{{"sha-256", []byte{0xff}}}, duplicates: []string{"sha-256"}},
	{name: "duplicate thrice listed once", lines: []string{"md5=:AA==:, md5=:AQ==:, md5=:Ag==:"},
		want: []Digest{{"md5", []byte{2}}}, duplicates: []string{"md5"}},
	{name: "unknown key kept", lines: []string{"sha-3=:AQ==:, sha-256=:AAAA:"},
		want: []Digest{{"sha-3", []byte{1}}, {"sha-256", []byte{0, 0, 0}}}},
	{name: "parameters ignored", lines: []string{`sha-256=:AAAA:;q=1;note="x, y", md5=:AQ==:;a`},
		want: []Digest{{"sha-256", []byte{0, 0, 0}}, {"md5", []byte{1}}}},
	{name: "missing padding synthesized", lines: []string{"sha-256=:" + strings.TrimRight(sha256HelloNoLF, "=") + ":"},
		want: []Digest{{"sha-256", []byte(mustDecode(sha256HelloNoLF))}}},
	{name: "missing double padding synthesized", lines: []string{"md5=:Sd/dVLAcvNLSq16eXua5uQ:"},
		want: []Digest{{"md5", []byte(mustDecode("Sd/dVLAcvNLSq16eXua5uQ=="))}}},
	{name: "non-zero pad bits accepted", lines: []string{"md5=:iZ==:"}, want: []Digest{{"md5", []byte{0x89}}}},
	{name: "empty byte sequence", lines: []string{"sha-256=::"}, want: []Digest{{"sha-256", []byte{}}}},
	{name: "over-padded", lines: []string{overPadded}, ignored: "not a valid structured-field dictionary"},
	{name: "unpaddable length", lines: []string{"sha-256=:AAAAA:"}, ignored: "not a valid structured-field dictionary"},
	{name: "uppercase key", lines: []string{"SHA-256=:" + sha256Hello + ":"}, ignored: "not a valid structured-field dictionary"},
	{name: "uppercase in key", lines: []string{"sha-256=:AAAA:, Md5=:AQ==:"}, want: []Digest{{"sha-256", []byte{0, 0, 0}}}, salvaged: true},
	{name: "whitespace around =", lines: []string{"sha-256 = :AAAA:"}, ignored: "not a valid structured-field dictionary"},
	{name: "trailing comma", lines: []string{"sha-256=:AAAA:,"}, want: []Digest{{"sha-256", []byte{0, 0, 0}}}, salvaged: true},
	{name: "base64url", lines: []string{"sha-256=:_-Ah:"}, ignored: "not a valid structured-field dictionary"},
	{name: "unterminated", lines: []string{"sha-256=:AAAA"}, ignored: "not a valid structured-field dictionary"},
	{name: "unparsable member: the others are read alone", lines: []string{"sha-256=:" + sha256Hello + ":", "md5=:!!:"}, want: []Digest{{"sha-256", []byte(mustDecode(sha256Hello))}}, salvaged: true},
	{name: "token value", lines: []string{"sha-256=abc"}, ignored: "is a token, want a byte sequence"},
	{name: "token with colons", lines: []string{"sha-256=a:b:"}, ignored: "is a token"},
	{name: "integer value", lines: []string{"md5=1"}, ignored: `member "md5" is an integer`},
	{name: "integer member skipped alone", lines: []string{"sha-256=:AAAA:, md5=1"}, want: []Digest{{"sha-256", []byte{0, 0, 0}}}},
	{name: "every member skipped", lines: []string{"md5=1, sha-256=?1"}, ignored: `member "md5" is an integer, want a byte sequence (:base64:); member "sha-256" is a boolean`},
	{name: "duplicates of a skipped member not listed", lines: []string{"sha-256=:AAAA:, foo=1, foo=2"}, want: []Digest{{"sha-256", []byte{0, 0, 0}}}},
	{name: "decimal value", lines: []string{"sha-256=1.5"}, ignored: "is a decimal"},
	{name: "string value", lines: []string{`sha-256="AAAA"`}, ignored: "is a string"},
	{name: "bare key is boolean true", lines: []string{"sha-256"}, ignored: "is a boolean"},
	{name: "explicit boolean", lines: []string{"sha-256=?0"}, ignored: "is a boolean"},
	{name: "inner list", lines: []string{"sha-256=(:AAAA:)"}, ignored: "is an inner list"},
	{name: "RFC 3230 syntax", lines: []string{"SHA-256=" + sha256Hello}, ignored: "not a valid structured-field dictionary"},
	{name: "over the size limit", lines: []string{"sha-256=:" + strings.Repeat("A", maxFieldLen) + ":"}, ignored: "over the"},
}

func mustDecode(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestParseDigestField(t *testing.T) {
	for _, tt := range parseDigestFieldTests {
		t.Run(tt.name, func(t *testing.T) {
			f := ParseDigestField(ReprDigest, tt.lines)
			if f.Present != (tt.lines != nil) {
				t.Fatalf("Present = %v for %q", f.Present, tt.lines)
			}
			if tt.want == nil {
				if f.Usable() {
					t.Fatalf("ParseDigestField(%q) usable with %v, want ignored", tt.lines, f.Digests)
				}
				if f.Digests != nil {
					t.Errorf("ignored field keeps digests %v", f.Digests)
				}
				if !strings.Contains(f.Ignored, tt.ignored) {
					t.Errorf("Ignored = %q, want it to contain %q", f.Ignored, tt.ignored)
				}
				return
			}
			if !f.Usable() {
				t.Fatalf("ParseDigestField(%q) ignored: %s", tt.lines, f.Ignored)
			}
			if f.Salvaged != tt.salvaged {
				t.Errorf("Salvaged = %v, want %v", f.Salvaged, tt.salvaged)
			}
			if !reflect.DeepEqual(f.Digests, tt.want) {
				t.Errorf("Digests = %v, want %v", f.Digests, tt.want)
			}
			if !slices.Equal(f.Duplicates, tt.duplicates) {
				t.Errorf("Duplicates = %q, want %q", f.Duplicates, tt.duplicates)
			}
			hasDupWarning := slices.ContainsFunc(f.Warnings(), func(w string) bool { return strings.Contains(w, "duplicate keys") })
			if hasDupWarning != (len(tt.duplicates) > 0) {
				t.Errorf("Warnings = %q, duplicate warning %v, want %v", f.Warnings(), hasDupWarning, len(tt.duplicates) > 0)
			}
		})
	}
}

func TestUnknownKeyReportedUnsupported(t *testing.T) {
	f := ParseDigestField(ReprDigest, []string{"sha-3=:AQ==:, sha-256=:" + sha256Hello + ":"})
	got, checks := outcomeOf(t, f, bodyHello, DefaultPolicy())
	if got != Verified {
		t.Fatalf("outcome = %s, want verified: %v", got, checks)
	}
	if checks[0].Algorithm != "sha-3" || checks[0].Result != Ignored || checks[0].Reason != "unsupported algorithm" {
		t.Errorf("check for sha-3 = %+v, want ignored as unsupported", checks[0])
	}
}

func TestPadByteSequences(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no byte sequence", "a=1, b=?0", "a=1, b=?0"},
		{"padded already", "a=:aGVsbG8=:", "a=:aGVsbG8=:"},
		{"one missing", "a=:aGVsbG8:", "a=:aGVsbG8=:"},
		{"two missing", "a=:aGVsbA:", "a=:aGVsbA==:"},
		{"several", "a=:aGVsbA:, b=:AAAA:, c=:aGVsbG8:", "a=:aGVsbA==:, b=:AAAA:, c=:aGVsbG8=:"},
		{"parameter", "a=:AAAA:;p=:aGVsbA:", "a=:AAAA:;p=:aGVsbA==:"},
		{"inner list", "a=(:aGVsbA: :aGVsbG8:)", "a=(:aGVsbA==: :aGVsbG8=:)"},
		{"inside a string", `a="x=:aGVsbA:", b=:aGVsbA:`, `a="x=:aGVsbA:", b=:aGVsbA==:`},
		{"escaped quote in string", `a="\"=:aGVsbA:", b=:aGVsbA:`, `a="\"=:aGVsbA:", b=:aGVsbA==:`},
		{"display string with backslash", `a=%"\", b=:aGVsbA:`, `a=%"\", b=:aGVsbA==:`},
		{"token with colons", "a=t:aGVsbA:", "a=t:aGVsbA:"},
		{"token then byte sequence", "a=t:x:, b=:aGVsbA:", "a=t:x:, b=:aGVsbA==:"},
		{"unpaddable length", "a=:aGVsb:", "a=:aGVsb:"},
		{"misplaced padding", "a=:a=GVsbA:", "a=:a=GVsbA:"},
		{"bad character", "a=:aGV!bA:", "a=:aGV!bA:"},
		{"unterminated", "a=:aGVsbA", "a=:aGVsbA"},
		{"empty", "a=::", "a=::"},
		{"unterminated string", `a=:aGVsbA:, b="x=:aGVsbA:`, `a=:aGVsbA==:, b="x=:aGVsbA:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := padByteSequences(tt.in); got != tt.want {
				t.Errorf("padByteSequences(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDuplicateKeys(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"none", "a=1, b=2", nil},
		{"one", "a=1, b=2, a=3", []string{"a"}},
		{"string with comma and key", `a="x, b", b=1`, nil},
		{"display string with backslash", `a=%"\", a=1`, []string{"a"}},
		{"inner list", "a=(b c), b=1", nil},
		{"parameters", "a=1;b=2, b=3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := duplicateKeys(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("duplicateKeys(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatDigests(t *testing.T) {
	ds := []Digest{{"sha-256", mustB64(t, sha256HelloNoLF)}, {"unixsum", []byte{0x19, 0x05}}}
	want := "sha-256=:" + sha256HelloNoLF + ":, unixsum=:GQU=:"
	if got := FormatDigests(ds); got != want {
		t.Fatalf("FormatDigests = %q, want %q", got, want)
	}
	if f := ParseDigestField(ReprDigest, []string{want}); !reflect.DeepEqual(f.Digests, ds) {
		t.Errorf("re-parsed %v, want %v", f.Digests, ds)
	}
	// Appendix D re-serializes to itself.
	f := ParseDigestField(ReprDigest, []string{appendixD})
	if got := FormatDigests(f.Digests); got != appendixD {
		t.Errorf("FormatDigests(App. D) = %q, want %q", got, appendixD)
	}
}

var wantFieldTests = []struct {
	name    string
	lines   []string
	want    []Pref // nil: ignored
	ignored string
}{
	{"§4 single", []string{"sha-256=1"}, []Pref{{"sha-256", 1}}, ""},
	{"§4 three", []string{"sha-512=3, sha-256=10, unixsum=0"}, []Pref{{"sha-512", 3}, {"sha-256", 10}, {"unixsum", 0}}, ""},
	{"C.1", []string{"sha-256=3, sha=10"}, []Pref{{"sha-256", 3}, {"sha", 10}}, ""},
	{"C.2", []string{"sha=10"}, []Pref{{"sha", 10}}, ""},
	{"two lines", []string{"sha-512=3", "sha-256=10"}, []Pref{{"sha-512", 3}, {"sha-256", 10}}, ""},
	{"unknown key kept", []string{"sha-3=9, sha-256=1"}, []Pref{{"sha-3", 9}, {"sha-256", 1}}, ""},
	{"parameters ignored", []string{"sha-256=5;q=1"}, []Pref{{"sha-256", 5}}, ""},
	{"duplicate last wins", []string{"sha-256=5, sha-256=7"}, []Pref{{"sha-256", 7}}, ""},
	{"out of range 11", []string{"sha-256=11"}, nil, "is 11, want an integer 0-10"},
	{"out of range -1", []string{"sha-512=3, sha-256=-1"}, nil, "is -1, want an integer 0-10"},
	{"decimal", []string{"sha-256=0.5"}, nil, "is a decimal"},
	{"bare key", []string{"sha-256"}, nil, "is a boolean"},
	{"RFC 3230 qvalue", []string{"sha-256;q=0.3"}, nil, "is a boolean"},
	{"token", []string{"sha-256=high"}, nil, "is a token"},
	{"byte sequence", []string{"sha-256=:AA==:"}, nil, "is a byte sequence"},
	{"inner list", []string{"sha-256=(1 2)"}, nil, "is an inner list"},
	{"uppercase", []string{"SHA-256=1"}, nil, "not a valid structured-field dictionary"},
	{"empty", []string{""}, nil, "empty dictionary"},
}

func TestParseWantField(t *testing.T) {
	for _, tt := range wantFieldTests {
		t.Run(tt.name, func(t *testing.T) {
			w := ParseWantField(WantReprDigest, tt.lines)
			if !w.Present || w.Name != WantReprDigest {
				t.Fatalf("ParseWantField = %+v, want present", w)
			}
			if tt.want == nil {
				if w.Ignored == "" || w.Prefs != nil || !strings.Contains(w.Ignored, tt.ignored) {
					t.Fatalf("ParseWantField(%q) = %+v, want ignored for %q", tt.lines, w, tt.ignored)
				}
				return
			}
			if w.Ignored != "" || !reflect.DeepEqual(w.Prefs, tt.want) {
				t.Fatalf("ParseWantField(%q) = %+v, want %v", tt.lines, w, tt.want)
			}
		})
	}
	if w := ParseWantField(WantContentDigest, nil); w.Present || w.Ignored != "" {
		t.Errorf("ParseWantField(nil) = %+v, want absent", w)
	}
}

func TestParseWant(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Pref
		err      string
	}{
		{"bare key", "sha-256", []Pref{{"sha-256", 10}}, ""},
		{"contract default", "sha-256=10, sha-512=5", []Pref{{"sha-256", 10}, {"sha-512", 5}}, ""},
		{"mixed", "sha-512, md5=1", []Pref{{"sha-512", 10}, {"md5", 1}}, ""},
		{"case folded", "SHA-256=3", []Pref{{"sha-256", 3}}, ""},
		{"refusal", "unixsum=0", []Pref{{"unixsum", 0}}, ""},
		{"stray commas", ",sha-256,,", []Pref{{"sha-256", 10}}, ""},
		{"empty", "", nil, "empty preference list"},
		{"unknown", "sha-3", nil, `unknown digest algorithm "sha-3"`},
		{"out of range", "sha-256=11", nil, "want an integer 0-10"},
		{"not a number", "sha-256=x", nil, "is a token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWant(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseWant(%q) = %v, %v; want error %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseWant(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			// What the CLI sends must be a valid field.
			if w := ParseWantField(WantReprDigest, []string{FormatWant(got)}); !reflect.DeepEqual(w.Prefs, got) {
				t.Errorf("FormatWant round trip = %+v, want %v", w, got)
			}
		})
	}
}

func TestChoose(t *testing.T) {
	tests := []struct {
		name     string
		prefs    string
		fallback string
		want     []string
	}{
		{"no preferences: fallback", "", "sha-256", []string{"sha-256"}},
		{"§4 example", "sha-512=3, sha-256=10, unixsum=0", "sha-512", []string{"sha-256"}},
		{"C.1 prefers sha", "sha-256=3, sha=10", "sha-256", []string{"sha"}},
		{"tie keeps field order", "sha-512=5, sha-256=5, md5=1", "sha-256", []string{"sha-512", "sha-256"}},
		{"unknown only: fallback", "sha-3=10", "sha-256", []string{"sha-256"}},
		{"unknown preferred over known", "sha-3=10, sha-512=2", "sha-256", []string{"sha-512"}},
		{"fallback refused", "sha-256=0", "sha-256", nil},
		{"all refused", "sha-256=0, sha-512=0", "sha-512", nil},
		{"other refused, fallback used", "md5=0", "sha-256", []string{"sha-256"}},
		{"unknown fallback", "", "sha-3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prefs []Pref
			if tt.prefs != "" {
				w := ParseWantField(WantReprDigest, []string{tt.prefs})
				if w.Ignored != "" {
					t.Fatalf("bad test preferences: %s", w.Ignored)
				}
				prefs = w.Prefs
			}
			var got []string
			for _, a := range Choose(prefs, tt.fallback) {
				got = append(got, a.Key)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Choose(%q, %q) = %q, want %q", tt.prefs, tt.fallback, got, tt.want)
			}
		})
	}
}

func TestDigestFieldWarnings(t *testing.T) {
	f := ParseDigestField(ContentDigest, []string{"sha-256=abc"})
	w := f.Warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "Content-Digest ignored: ") {
		t.Errorf("Warnings = %q, want one saying the field is ignored", w)
	}
	if w := ParseDigestField(ContentDigest, nil).Warnings(); w != nil {
		t.Errorf("Warnings of an absent field = %q, want none", w)
	}
}

// A field that is not a valid Dictionary proves nothing, but a member that
// parses alone and mismatches is a failure (issue 9: a mismatch is never
// hidden, whatever else the field holds).
func TestSalvagedMembersOnlyFail(t *testing.T) {
	good := ParseDigestField(ReprDigest, []string{"sha-256=:" + sha256Hello + ":, x=@"})
	if got, checks := outcomeOf(t, good, bodyHello, DefaultPolicy()); got != Unverified || checks[0].Result != Ignored {
		t.Errorf("matching member of a malformed field: outcome %s, checks %+v; want unverified, ignored", got, checks)
	}
	bad := ParseDigestField(ReprDigest, []string{"sha-256=:" + strings.Repeat("A", 43) + "=:, x=@"})
	if got, checks := outcomeOf(t, bad, bodyHello, DefaultPolicy()); got != Mismatched {
		t.Errorf("mismatching member of a malformed field: outcome %s, checks %+v; want mismatch", got, checks)
	}
}
