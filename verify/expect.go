package verify

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Bounds on what a user pastes: an npm integrity string holds a few SRI
// tokens, an RFC 9530 value a few members.
const (
	maxExpectLen    = 4 << 10
	maxExpectTokens = 16
)

// Expected is a digest the user supplied, and how hdig read it.
type Expected struct {
	Digest
	// Form names the syntax it was read in: "RFC 9530", "SRI", "OCI",
	// "hex".
	Form string
	// Inferred says the algorithm was guessed from the length of bare hex.
	Inferred bool
}

// sriNames maps the hash names of Subresource Integrity, OCI/Docker
// digests and coreutils' BSD tags to hdig's keys.
var sriNames = map[string]string{
	"sha256": "sha-256", "sha384": "sha-384", "sha512": "sha-512",
	"sha1": "sha", "md5": "md5",
}

// hexLengths infers an algorithm from the length of a bare hex digest.
var hexLengths = map[int]string{32: "md5", 40: "sha", 64: "sha-256", 96: "sha-384", 128: "sha-512"}

// ParseExpected reads a digest as users paste it: an RFC 9530 field value
// (`sha-256=:base64:`, several members allowed), Subresource Integrity
// (`sha384-base64`; npm's integrity, several separated by spaces), an
// OCI/Docker digest (`sha256:hex`) or bare hex. Bare hex takes its
// algorithm from alg ("" infers it from the length: 64 digits sha-256, 96
// sha-384, 128 sha-512, 40 sha, 32 md5; Expected.Inferred says so). Every
// value must have its algorithm's length.
func ParseExpected(s, alg string) ([]Expected, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return nil, fmt.Errorf("empty digest")
	case len(s) > maxExpectLen:
		return nil, fmt.Errorf("digest is %d bytes, over the %d-byte limit", len(s), maxExpectLen)
	case strings.Contains(s, "=:"):
		return parseExpectedField(s)
	}
	toks := strings.Fields(s)
	if len(toks) > maxExpectTokens {
		return nil, fmt.Errorf("%d digests in one value, over the limit of %d", len(toks), maxExpectTokens)
	}
	var out []Expected
	for _, t := range toks {
		e, err := parseExpectedToken(t, alg)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := Conflicting(out); err != nil {
		return nil, err
	}
	return out, nil
}

// parseExpectedField reads an RFC 9530 Dictionary such as a Repr-Digest
// value.
func parseExpectedField(s string) ([]Expected, error) {
	f := ParseDigestField(ReprDigest, []string{s})
	if !f.Usable() {
		return nil, fmt.Errorf("%q is not an RFC 9530 digest value: %s", s, f.Ignored)
	}
	if len(f.Skipped) > 0 {
		return nil, fmt.Errorf("%q: %s", s, f.Skipped[0])
	}
	// The last value of a repeated key counts in a field (RFC 9651
	// §4.2.2), but the user trusts each value typed: the earlier ones are
	// kept for Conflicting to judge, not dropped uncompared.
	var out []Expected
	for _, d := range append(f.Shadowed, f.Digests...) {
		if err := checkSize(d.Algorithm, d.Value); err != nil {
			return nil, err
		}
		out = append(out, Expected{Digest: d, Form: "RFC 9530"})
	}
	if err := Conflicting(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Conflicting refuses two expected digests of one algorithm that differ,
// wherever the user gave them (one value, two --expect, a checksum
// file): the bytes can match one at most. Alike, they are one.
func Conflicting(xs []Expected) error {
	for i, x := range xs {
		for _, y := range xs[:i] {
			if x.Algorithm == y.Algorithm && !bytes.Equal(x.Value, y.Value) {
				return fmt.Errorf("two %s digests that differ (%s and %s): the bytes can match one at most", x.Algorithm,
					FormatDigests([]Digest{y.Digest}), FormatDigests([]Digest{x.Digest}))
			}
		}
	}
	return nil
}

// parseExpectedToken reads one SRI, OCI or hex digest.
func parseExpectedToken(t, alg string) (Expected, error) {
	if name, v, ok := strings.Cut(t, ":"); ok {
		key, known := sriNames[strings.ToLower(name)]
		if !known {
			return Expected{}, fmt.Errorf("%q: unknown OCI digest algorithm %q (want sha256, sha384 or sha512)", t, name)
		}
		b, err := decodeHex(v)
		if err != nil {
			return Expected{}, fmt.Errorf("%q: %v", t, err)
		}
		return expected(key, b, "OCI", false)
	}
	if name, v, ok := strings.Cut(t, "-"); ok {
		if key, known := sriNames[strings.ToLower(name)]; known {
			v, _, _ = strings.Cut(v, "?") // SRI options (W3C SRI §3.5)
			b, err := decodeBase64(v)
			if err != nil {
				return Expected{}, fmt.Errorf("%q: %v", t, err)
			}
			return expected(key, b, "SRI", false)
		}
	}
	b, err := decodeHex(t)
	if err != nil {
		return Expected{}, fmt.Errorf("%q is not a digest hdig reads (RFC 9530 sha-256=:…:, SRI sha384-…, OCI sha256:…, or hex): %v", t, err)
	}
	if alg != "" {
		return expected(alg, b, "hex", false)
	}
	key, ok := hexLengths[len(t)]
	if !ok {
		return Expected{}, fmt.Errorf("%q: %d hex digits name no algorithm (32 md5, 40 sha, 64 sha-256, 96 sha-384, 128 sha-512); use --expect-alg", t, len(t))
	}
	return expected(key, b, "hex", true)
}

func expected(key string, b []byte, form string, inferred bool) (Expected, error) {
	if err := checkSize(key, b); err != nil {
		return Expected{}, err
	}
	return Expected{Digest: Digest{Algorithm: key, Value: b}, Form: form, Inferred: inferred}, nil
}

// checkSize fails a value whose length is not its algorithm's.
func checkSize(key string, b []byte) error {
	a, ok := Find(key)
	if !ok {
		return fmt.Errorf("unknown digest algorithm %q (known: %s)", key, strings.Join(AllKeys(), ", "))
	}
	if len(b) != a.Size {
		return fmt.Errorf("%s digest is %d bytes, want %d", key, len(b), a.Size)
	}
	return nil
}

func decodeHex(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(s) == 0 {
		return nil, fmt.Errorf("not hexadecimal")
	}
	return b, nil
}

// decodeBase64 reads standard or URL-safe base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.Strict().DecodeString(s); err == nil && len(s) > 0 {
			return b, nil
		}
	}
	return nil, fmt.Errorf("not base64")
}

// FormatSRI is the Subresource Integrity form of a digest (`sha384-…`), or
// "" for an algorithm SRI has no name for.
func FormatSRI(d Digest) string {
	name := sriName(d.Algorithm)
	if name == "" {
		return ""
	}
	return name + "-" + base64.StdEncoding.EncodeToString(d.Value)
}

// FormatOCI is the OCI/Docker form of a digest (`sha256:hex`), or "" for
// an algorithm it has no name for.
func FormatOCI(d Digest) string {
	name := sriName(d.Algorithm)
	if name == "" {
		return ""
	}
	return name + ":" + hex.EncodeToString(d.Value)
}

func sriName(key string) string {
	switch key {
	case "sha-256", "sha-384", "sha-512":
		return strings.ReplaceAll(key, "-", "")
	}
	return ""
}
