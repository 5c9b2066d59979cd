package verify

import (
	"bytes"
	"encoding/base32"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

// sfTest is one record of httpwg/structured-field-tests (testdata/sf).
type sfTest struct {
	Name       string          `json:"name"`
	Raw        []string        `json:"raw"`
	HeaderType string          `json:"header_type"`
	Expected   json.RawMessage `json:"expected"`
	MustFail   bool            `json:"must_fail"`
	CanFail    bool            `json:"can_fail"`
}

func loadSFTests(t *testing.T, name string) []sfTest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sf", name))
	if err != nil {
		t.Fatal(err)
	}
	var tests []sfTest
	if err := json.Unmarshal(data, &tests); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(tests) == 0 {
		t.Fatalf("%s: no tests", name)
	}
	return tests
}

// Every case of dictionary.json as an Integrity field: the must_fail ones
// leave it ignored because they do not parse (RFC 9651 §4.2); in the others
// each member that is not a Byte Sequence is skipped on its own, and the
// field is ignored only when no member is left.
func TestSFDictionaryCases(t *testing.T) {
	for _, tt := range loadSFTests(t, "dictionary.json") {
		t.Run(tt.Name, func(t *testing.T) {
			f := ParseDigestField(ReprDigest, tt.Raw)
			if tt.MustFail {
				if f.Usable() || !strings.Contains(f.Ignored, "not a valid structured-field dictionary") {
					t.Fatalf("ParseDigestField(%q) = %+v, want ignored as unparsable", tt.Raw, f)
				}
				return
			}
			d, err := httpsfv.UnmarshalDictionary([]string{padByteSequences(strings.Join(tt.Raw, ", "))})
			if err != nil {
				t.Skipf("httpsfv rejects a can_fail case: %v", err)
			}
			bytesMembers := 0
			for _, k := range d.Names() {
				if m, _ := d.Get(k); m != nil {
					if it, ok := m.(httpsfv.Item); ok {
						if _, ok := it.Value.([]byte); ok {
							bytesMembers++
						}
					}
				}
			}
			if len(f.Digests) != bytesMembers || f.Usable() != (bytesMembers > 0) {
				t.Errorf("ParseDigestField(%q) = %+v, want the %d byte sequences kept", tt.Raw, f, bytesMembers)
			}
			if skipped := len(f.Skipped); f.Usable() && skipped != len(d.Names())-bytesMembers {
				t.Errorf("Skipped = %q, want %d members", f.Skipped, len(d.Names())-bytesMembers)
			}
		})
	}
}

// Every case of binary.json, as the value of a sha-256 member. must_fail
// cases leave the field ignored; the others decode to the expected bytes,
// including the can_fail ones (no padding, non-zero pad bits), which RFC
// 9651 §4.2.7 says parsers SHOULD NOT fail and which verify accepts.
func TestSFBinaryCases(t *testing.T) {
	for _, tt := range loadSFTests(t, "binary.json") {
		t.Run(tt.Name, func(t *testing.T) {
			lines := make([]string, len(tt.Raw))
			for i, r := range tt.Raw {
				lines[i] = "sha-256=" + r
			}
			f := ParseDigestField(ReprDigest, lines)
			if tt.MustFail {
				if f.Usable() || !strings.Contains(f.Ignored, "not a valid structured-field dictionary") {
					t.Fatalf("ParseDigestField(%q) = %+v, want ignored as unparsable", lines, f)
				}
				return
			}
			want := sfExpectedBinary(t, tt.Expected)
			if !f.Usable() {
				t.Fatalf("ParseDigestField(%q) ignored: %s (can_fail %v)", lines, f.Ignored, tt.CanFail)
			}
			if got, _ := f.Get("sha-256"); !bytes.Equal(got, want) {
				t.Errorf("value = %x, want %x", got, want)
			}
		})
	}
}

// sfExpectedBinary decodes an expected item [{"__type":"binary","value":BASE32}, params].
func sfExpectedBinary(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var item []json.RawMessage
	if err := json.Unmarshal(raw, &item); err != nil || len(item) != 2 {
		t.Fatalf("bad expected %s: %v", raw, err)
	}
	var bare struct {
		Type  string `json:"__type"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal(item[0], &bare); err != nil || bare.Type != "binary" {
		t.Fatalf("expected %s is not binary: %v", item[0], err)
	}
	b, err := base32.StdEncoding.DecodeString(bare.Value)
	if err != nil {
		t.Fatalf("expected %q: %v", bare.Value, err)
	}
	return b
}

// The duplicate-key case of dictionary.json, with Byte Sequences: last value
// wins, first position kept, canonical form "a=3, b=2".
func TestSFDuplicateKeyWithByteSequences(t *testing.T) {
	f := ParseDigestField(ReprDigest, []string{"a=:AQ==:,b=:Ag==:,a=:Aw==:"})
	if got, want := FormatDigests(f.Digests), "a=:Aw==:, b=:Ag==:"; got != want {
		t.Errorf("canonical = %q, want %q", got, want)
	}
	if len(f.Duplicates) != 1 || f.Duplicates[0] != "a" {
		t.Errorf("Duplicates = %q, want [a]", f.Duplicates)
	}
}

// httpsfv decodes Byte Sequences with base64.StdEncoding and so fails on
// missing padding, against RFC 9651 §4.2.7's SHOULD NOT; parseDict pads them
// first (padByteSequences). When this test fails, httpsfv has been fixed and
// the padding can go.
func TestHTTPSFVRejectsMissingPadding(t *testing.T) {
	if _, err := httpsfv.UnmarshalDictionary([]string{"a=:aGVsbG8:"}); err == nil {
		t.Fatal("httpsfv now accepts missing padding: padByteSequences is no longer needed")
	}
	if _, why := parseDict([]string{"a=:aGVsbG8:"}); why != "" {
		t.Fatalf("parseDict failed: %s", why)
	}
}
