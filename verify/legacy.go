package verify

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// The obsolete RFC 3230 Digest field (RFC 9530 §1.3, App. E) is read with
// RFC 9530's semantics for Repr-Digest: both are computed over the selected
// representation data. Its algorithms are the tokens of the deprecated IANA
// "HTTP Digest Algorithm Values" registry, each with its own encoding
// (rfc-notes §1.5): base64 for the hashes, ASCII decimal for the UNIX sums,
// hex for ADLER32 and CRC32c. ParseLegacyDigest decodes every value into the
// RFC 9530 digest-value bytes, so Compare works on the result unchanged.

// legacyCodec says how a legacy algorithm encodes its output.
type legacyCodec int

const (
	legacyBase64    legacyCodec = iota // RFC 4648 base64 of the digest
	legacyDecimal16                    // ASCII decimal of a 16-bit checksum
	legacyDecimal32                    // ASCII decimal of a 32-bit checksum
	legacyHex32                        // 1 to 8 hex digits of a 32-bit checksum
)

// legacyAlgorithms maps the RFC 3230 registry tokens to RFC 9530 keys, in
// the order of the RFC 9530 registry.
var legacyAlgorithms = []struct {
	token, key string
	codec      legacyCodec
}{
	{"SHA-512", "sha-512", legacyBase64},
	{"SHA-256", "sha-256", legacyBase64},
	{"MD5", "md5", legacyBase64},
	{"SHA", "sha", legacyBase64},
	{"UNIXsum", "unixsum", legacyDecimal16},
	{"UNIXcksum", "unixcksum", legacyDecimal32},
	{"ADLER32", "adler", legacyHex32},
	{"CRC32c", "crc32c", legacyHex32},
}

// LookupLegacy returns the algorithm an RFC 3230 token names (SHA-256,
// UNIXsum, ADLER32, …), matched case-insensitively, as in Want-Digest.
func LookupLegacy(token string) (Algorithm, bool) {
	for _, a := range legacyAlgorithms {
		if strings.EqualFold(a.token, token) {
			return Lookup(a.key)
		}
	}
	return Algorithm{}, false
}

// Limits on what ParseLegacyDigest reads, besides maxFieldLen.
const (
	maxLegacyMembers  = 1024 // as many as RFC 9651 §3.2 asks parsers to support
	maxLegacyValueLen = 256  // sha-512 needs 88 base64 characters
)

// ParseLegacyDigest parses the field lines of an RFC 3230 Digest field:
// `Digest: SHA-256=<base64>, UNIXsum=30637`. Algorithm tokens are matched
// case-insensitively and mapped to RFC 9530 keys (SHA-256 → sha-256,
// ADLER32 → adler, …); values are decoded from their legacy encodings into
// the RFC 9530 digest-value bytes, big-endian for the checksums.
//
// Unlike the Structured Fields of RFC 9530, the legacy field is read member
// by member: a member with an unknown algorithm token or a value that cannot
// be decoded is left out, and the reason is added to Skipped; the other
// members still count. A value that decodes but has the wrong length is kept,
// so that Compare reports it as a mismatch, as it does for Repr-Digest. The
// whole field is ignored only when it is over the size limits or no member is
// left. A repeated algorithm keeps its first position and its last value, and
// is listed in Duplicates, as for a Dictionary; its earlier values that
// differ are kept in Shadowed, which Compare checks too.
func ParseLegacyDigest(lines []string) DigestField {
	f := DigestField{Name: LegacyDigest, Present: len(lines) > 0, Obsolete: true}
	if !f.Present {
		return f
	}
	total := 0
	for _, l := range lines {
		total += len(l)
	}
	if total > maxFieldLen {
		f.Ignored = fmt.Sprintf("field is %d bytes, over the %d-byte limit", total, maxFieldLen)
		return f
	}
	members := splitLegacyList(strings.Join(lines, ","))
	if len(members) > maxLegacyMembers {
		f.Ignored = fmt.Sprintf("field has %d members, over the limit of %d", len(members), maxLegacyMembers)
		return f
	}
	seen := map[string]int{} // key → index in f.Digests
	var all []Digest         // every member read, for Shadowed
	for _, m := range members {
		d, why := parseLegacyMember(m)
		if why != "" {
			f.Skipped = append(f.Skipped, why)
			continue
		}
		all = append(all, d)
		if i, dup := seen[d.Algorithm]; dup {
			f.Digests[i].Value = d.Value
			if !containsString(f.Duplicates, d.Algorithm) {
				f.Duplicates = append(f.Duplicates, d.Algorithm)
			}
			continue
		}
		seen[d.Algorithm] = len(f.Digests)
		f.Digests = append(f.Digests, d)
	}
	if len(f.Digests) == 0 {
		f.Ignored = "no member with a supported algorithm and a valid value"
	}
	if len(f.Duplicates) > 0 {
		f.Shadowed = shadowed(f, all)
	}
	return f
}

// FormatLegacyDigest serializes digests as an RFC 3230 Digest field value,
// e.g. `SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=, UNIXsum=6405`.
// Digests whose algorithm has no legacy token, and checksums whose value is
// not 2 (unixsum) or 4 (the others) bytes, are left out: they cannot be
// expressed in the legacy encodings.
func FormatLegacyDigest(ds []Digest) string {
	var parts []string
	for _, d := range ds {
		for _, a := range legacyAlgorithms {
			if a.key != d.Algorithm {
				continue
			}
			if v, ok := encodeLegacyValue(a.codec, d.Value); ok {
				parts = append(parts, a.token+"="+v)
			}
		}
	}
	return strings.Join(parts, ", ")
}

// parseLegacyMember parses `token=value`, returning a reason when the
// member is to be left out.
func parseLegacyMember(m string) (Digest, string) {
	tok, val, ok := strings.Cut(m, "=")
	tok, val = trimOWS(tok), trimOWS(val)
	if !ok {
		return Digest{}, fmt.Sprintf("member %q has no value", clip(m))
	}
	// RFC 3230 §4.1.1 lets other algorithms quote their output; accept a
	// quoted value for the registered ones too.
	if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
		val = val[1 : len(val)-1]
	}
	for _, a := range legacyAlgorithms {
		if !strings.EqualFold(tok, a.token) {
			continue
		}
		v, err := decodeLegacyValue(a.codec, val)
		if err != nil {
			return Digest{}, fmt.Sprintf("member %s: %v", a.token, err)
		}
		if a.codec == legacyBase64 {
			v = hexForm(a.key, val, v)
		}
		return Digest{Algorithm: a.key, Value: v}, ""
	}
	if strings.EqualFold(tok, "contentMD5") {
		return Digest{}, "member contentMD5: only allowed in Want-Digest (RFC 3230 §5)"
	}
	return Digest{}, fmt.Sprintf("member %q: unsupported algorithm", clip(tok))
}

func decodeLegacyValue(c legacyCodec, s string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("empty value")
	}
	if len(s) > maxLegacyValueLen {
		return nil, fmt.Errorf("value is %d characters, over the limit of %d", len(s), maxLegacyValueLen)
	}
	switch c {
	case legacyDecimal16, legacyDecimal32:
		bits := 16
		if c == legacyDecimal32 {
			bits = 32
		}
		if !allBytesIn(s, "0123456789") {
			return nil, fmt.Errorf("value %q is not a decimal number", clip(s))
		}
		n, err := strconv.ParseUint(s, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("value %q is out of range for a %d-bit checksum", clip(s), bits)
		}
		if bits == 16 {
			return binary.BigEndian.AppendUint16(nil, uint16(n)), nil
		}
		return binary.BigEndian.AppendUint32(nil, uint32(n)), nil
	case legacyHex32:
		if len(s) > 8 || !allBytesIn(s, "0123456789abcdefABCDEF") {
			return nil, fmt.Errorf("value %q is not 1 to 8 hex digits", clip(s))
		}
		n, _ := strconv.ParseUint(s, 16, 32) // cannot fail: at most 8 hex digits
		return binary.BigEndian.AppendUint32(nil, uint32(n)), nil
	}
	// Base64: non-zero pad bits are accepted (the RFC 3230 SHA example has
	// them), and so is missing padding, as RFC 9651 §4.2.7 asks of Byte
	// Sequences.
	// base64.StdEncoding skips CR and LF: reject anything outside the
	// alphabet first (found by fuzzing: "MD5=\r" decoded to nothing).
	if !allBytesIn(s, base64Alphabet+"=") {
		return nil, fmt.Errorf("value %q is not base64", clip(s))
	}
	v, err := base64.StdEncoding.DecodeString(padBase64(s))
	if err != nil {
		return nil, fmt.Errorf("value %q is not base64: %v", clip(s), err)
	}
	return v, nil
}

func encodeLegacyValue(c legacyCodec, v []byte) (string, bool) {
	switch c {
	case legacyDecimal16:
		if len(v) != 2 {
			return "", false
		}
		return strconv.FormatUint(uint64(binary.BigEndian.Uint16(v)), 10), true
	case legacyDecimal32:
		if len(v) != 4 {
			return "", false
		}
		return strconv.FormatUint(uint64(binary.BigEndian.Uint32(v)), 10), true
	case legacyHex32:
		if len(v) != 4 {
			return "", false
		}
		return fmt.Sprintf("%08x", binary.BigEndian.Uint32(v)), true
	}
	if len(v) == 0 {
		return "", false // would not parse back
	}
	return base64.StdEncoding.EncodeToString(v), true
}

// splitLegacyList splits an HTTP list (RFC 9110 §5.6.1) at the commas that
// are outside quoted strings, dropping empty elements.
func splitLegacyList(s string) []string {
	var out []string
	start, inStr := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case c == ',' && !inStr:
			if m := trimOWS(s[start:i]); m != "" {
				out = append(out, m)
			}
			start = i + 1
		}
	}
	if m := trimOWS(s[start:]); m != "" {
		out = append(out, m)
	}
	return out
}

// padBase64 adds the "=" padding that an unpadded base64 string lacks, so
// that base64.StdEncoding accepts it. Strings that already contain "=", and
// lengths no padding can repair, are returned unchanged.
func padBase64(s string) string {
	if strings.IndexByte(s, '=') >= 0 {
		return s
	}
	switch len(s) % 4 {
	case 2:
		return s + "=="
	case 3:
		return s + "="
	}
	return s
}

func trimOWS(s string) string { return strings.Trim(s, " \t") }

func allBytesIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// clip shortens s for a message.
func clip(s string) string {
	const n = 40
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
