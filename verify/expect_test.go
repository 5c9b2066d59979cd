package verify

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

var (
	helloSHA256 = sha256.Sum256([]byte("hello"))
	helloSHA384 = sha512.Sum384([]byte("hello"))
	helloSHA512 = sha512.Sum512([]byte("hello"))
)

var parseExpectedTests = []struct {
	name, in, alg string
	want          []string // "alg form inferred"
	value         []byte   // the first value
	err           string
}{
	{"rfc9530", "sha-256=:" + b64(helloSHA256[:]) + ":", "", []string{"sha-256 RFC 9530 false"}, helloSHA256[:], ""},
	{"rfc9530 two", "sha-256=:" + b64(helloSHA256[:]) + ":, sha-512=:" + b64(helloSHA512[:]) + ":", "", []string{"sha-256 RFC 9530 false", "sha-512 RFC 9530 false"}, helloSHA256[:], ""},
	{"sri 384", "sha384-" + b64(helloSHA384[:]), "", []string{"sha-384 SRI false"}, helloSHA384[:], ""},
	{"sri with option", "sha256-" + b64(helloSHA256[:]) + "?ct=text/plain", "", []string{"sha-256 SRI false"}, helloSHA256[:], ""},
	{"npm integrity", "sha512-" + b64(helloSHA512[:]) + " sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00=", "", []string{"sha-512 SRI false", "sha SRI false"}, helloSHA512[:], ""},
	{"oci", "sha256:" + hex.EncodeToString(helloSHA256[:]), "", []string{"sha-256 OCI false"}, helloSHA256[:], ""},
	{"hex inferred", hex.EncodeToString(helloSHA256[:]), "", []string{"sha-256 hex true"}, helloSHA256[:], ""},
	{"hex 96 inferred", hex.EncodeToString(helloSHA384[:]), "", []string{"sha-384 hex true"}, helloSHA384[:], ""},
	{"hex named", strings.ToUpper(hex.EncodeToString(helloSHA256[:])), "sha-256", []string{"sha-256 hex false"}, helloSHA256[:], ""},
	{"hex named md5", "5d41402abc4b2a76b9719d911017c592", "md5", []string{"md5 hex false"}, nil, ""},
	{"hex wrong length for alg", hex.EncodeToString(helloSHA256[:]), "sha-512", nil, nil, "sha-512 digest is 32 bytes, want 64"},
	{"hex odd length", "abc", "", nil, nil, "not hexadecimal"},
	{"hex unknown length", "abcd", "", nil, nil, "4 hex digits name no algorithm"},
	{"sri short", "sha256-" + b64(helloSHA256[:8]), "", nil, nil, "sha-256 digest is 8 bytes, want 32"},
	{"sri bad base64", "sha256-!!!", "", nil, nil, "not base64"},
	{"oci unknown", "blake3:abcd", "", nil, nil, `unknown OCI digest algorithm "blake3"`},
	{"rfc unknown alg", "foo=:AAAA:", "", nil, nil, `unknown digest algorithm "foo"`},
	// A repeated key kept only its last value: the earlier one, which the
	// bytes may not match, was never compared.
	{"rfc repeated key differs", "sha-256=:" + b64(helloSHA512[:32]) + ":, sha-256=:" + b64(helloSHA256[:]) + ":", "", nil, nil, "two sha-256 digests"},
	// Two SRI (or OCI, hex) values of one algorithm: the bytes can match
	// one at most, so the run could only fail after the download.
	{"sri repeated alg differs", "sha256-" + b64(helloSHA512[:32]) + " sha256-" + b64(helloSHA256[:]), "", nil, nil, "two sha-256 digests"},
	{"sri and hex alike", "sha256-" + b64(helloSHA256[:]) + " " + hex.EncodeToString(helloSHA256[:]), "", []string{"sha-256 SRI false", "sha-256 hex true"}, helloSHA256[:], ""},
	{"rfc repeated key alike", "sha-256=:" + b64(helloSHA256[:]) + ":, sha-256=:" + b64(helloSHA256[:]) + ":", "", []string{"sha-256 RFC 9530 false"}, helloSHA256[:], ""},
	{"rfc not byte sequence", "sha-256=:" + b64(helloSHA256[:]) + ":, md5=1", "", nil, nil, "want a byte sequence"},
	{"empty", "  ", "", nil, nil, "empty digest"},
	{"too long", strings.Repeat("a", maxExpectLen+1), "", nil, nil, "over the 4096-byte limit"},
	{"too many", strings.Repeat("sha1-qvTGHdzF6KLavt4PO0gs2a6pQ00= ", maxExpectTokens+1), "", nil, nil, "over the limit of 16"},
}

func TestParseExpected(t *testing.T) {
	for _, tt := range parseExpectedTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseExpected(tt.in, tt.alg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseExpected(%.40q) error = %v, want %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseExpected(%.40q): %v", tt.in, err)
			}
			var desc []string
			for _, e := range got {
				desc = append(desc, strings.Join([]string{e.Algorithm, e.Form, map[bool]string{true: "true", false: "false"}[e.Inferred]}, " "))
			}
			if strings.Join(desc, "|") != strings.Join(tt.want, "|") {
				t.Errorf("ParseExpected(%.40q) = %v, want %v", tt.in, desc, tt.want)
			}
			if tt.value != nil && string(got[0].Value) != string(tt.value) {
				t.Errorf("value = %x, want %x", got[0].Value, tt.value)
			}
		})
	}
}

func TestFormatSRIAndOCI(t *testing.T) {
	d := Digest{Algorithm: "sha-384", Value: helloSHA384[:]}
	if got, want := FormatSRI(d), "sha384-"+base64.StdEncoding.EncodeToString(helloSHA384[:]); got != want {
		t.Errorf("FormatSRI = %q, want %q", got, want)
	}
	if got, want := FormatOCI(d), "sha384:"+hex.EncodeToString(helloSHA384[:]); got != want {
		t.Errorf("FormatOCI = %q, want %q", got, want)
	}
	if got := FormatSRI(Digest{Algorithm: "md5", Value: make([]byte, 16)}); got != "" {
		t.Errorf("FormatSRI(md5) = %q, want none: SRI has no md5", got)
	}
	// What is formatted parses back to the same digest.
	for _, s := range []string{FormatSRI(d), FormatOCI(d)} {
		back, err := ParseExpected(s, "")
		if err != nil || len(back) != 1 || string(back[0].Value) != string(d.Value) || back[0].Algorithm != d.Algorithm {
			t.Errorf("ParseExpected(%q) = %v, %v; want %v", s, back, err, d)
		}
	}
}

// A user's digest counts as proof with any algorithm it names; a
// mismatch fails as any other.
func TestCompareTrusted(t *testing.T) {
	sum := sha512.Sum384([]byte("x"))
	computed := []Digest{{Algorithm: "sha-384", Value: sum[:]}}
	f := DigestField{Name: "--expect", Present: true, Trusted: true, Digests: computed}
	if cs := Compare(f, computed, DefaultPolicy()); len(cs) != 1 || cs[0].Result != Match {
		t.Errorf("trusted sha-384 match = %v, want match", cs)
	}
	f.Trusted = false
	if cs := Compare(f, computed, DefaultPolicy()); len(cs) != 1 || cs[0].Result != Ignored {
		t.Errorf("untrusted sha-384 match = %v, want ignored (not accepted)", cs)
	}
	f.Trusted = true
	f.Digests = []Digest{{Algorithm: "sha-384", Value: make([]byte, 48)}}
	if cs := Compare(f, computed, DefaultPolicy()); len(cs) != 1 || cs[0].Result != Mismatch {
		t.Errorf("trusted sha-384 mismatch = %v, want mismatch", cs)
	}
}
