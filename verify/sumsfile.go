package verify

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
)

// Bounds on a checksum file: a distribution's SHA256SUMS is a few KiB.
const (
	// MaxChecksumFile is the largest checksum file read, local or fetched.
	MaxChecksumFile = 4 << 20
	maxSumsLine     = 64 << 10
)

// ErrNoEntry says a checksum file has no line for the name looked up.
var ErrNoEntry = errors.New("no entry")

// bsdNames maps the tags of the BSD format (`SHA256 (name) = hex`, as
// `sha256sum --tag` and `openssl dgst` write it) to hdig's keys.
var bsdNames = map[string]string{
	"SHA256": "sha-256", "SHA384": "sha-384", "SHA512": "sha-512", "SHA1": "sha", "MD5": "md5",
	"SHA2-256": "sha-256", "SHA2-384": "sha-384", "SHA2-512": "sha-512",
}

// SumEntry is one line of a checksum file.
type SumEntry struct {
	Name   string
	Digest Digest
	Line   int
	// Tagged says the line named its algorithm (BSD format); else it came
	// from alg or the length of the hex.
	Tagged bool
	// err is why hdig sum's line for Name could not be read (fieldLine):
	// an error when Name is the one asked for, not for every name.
	err error
	// unusable says why a line that names Name gives no digest hdig can
	// check (hex of no algorithm's length, a tag it does not compute, a
	// value that is not a digest): beside a usable line for Name it is
	// passed over, alone it is the look-up's error. Either way the look-up
	// stays on Name: another file's line is never taken in its place.
	unusable error
}

// ChecksumEntries finds the entries for names (tried in order; an entry
// matches by its whole name or, failing that, its last path element) in a
// checksum file of coreutils' formats: `HEX  NAME` or `HEX *NAME` lines
// (sha256sum, sha512sum, md5sum, sha1sum; a line starting with a backslash
// has an escaped name) and BSD tags (`SHA256 (NAME) = HEX`). The algorithm
// of a line without a tag comes from alg, else from the length of its hex.
// hdig sum's own lines ("NAME: " and an RFC 9530 value, SRI or OCI) are
// read too (fieldLine).
// BLAKE2b (b2sum) is not computed: its tagged lines are an error that says
// so, and its untagged ones (128 hex digits, like sha512sum's) are read as
// sha-512 unless alg says otherwise. Lines that are neither format are
// skipped, as `sha256sum -c` does; several entries for the same name and
// algorithm must agree. A line of either shape for a name whose digest
// cannot be read keeps the look-up on that name (SumEntry.unusable).
func ChecksumEntries(data []byte, names []string, alg string) ([]SumEntry, error) {
	if len(data) > MaxChecksumFile {
		return nil, fmt.Errorf("checksum file is %d bytes, over the %d-byte limit", len(data), MaxChecksumFile)
	}
	all, err := sumLines(data, alg)
	if err != nil {
		return nil, err
	}
	for _, match := range []func(e, n string) bool{sameName, sameBase} {
		for _, n := range names {
			var found []SumEntry
			for _, e := range all {
				if match(e.Name, n) {
					found = append(found, e)
				}
			}
			if len(found) > 0 {
				var usable []SumEntry
				for _, e := range found {
					if e.err != nil {
						return nil, fmt.Errorf("line %d: %s: %v", e.Line, e.Name, e.err)
					}
					if e.unusable == nil {
						usable = append(usable, e)
					}
				}
				if len(usable) == 0 {
					e := found[0]
					return nil, fmt.Errorf("line %d: %s: %v", e.Line, e.Name, e.unusable)
				}
				return agreeing(usable)
			}
		}
	}
	return nil, fmt.Errorf("%w for %s among %d lines", ErrNoEntry, strings.Join(quoteAll(names), " or "), len(all))
}

func sameName(e, n string) bool { return e == n || strings.TrimPrefix(e, "./") == n }
func sameBase(e, n string) bool { return path.Base(e) == n }

// agreeing keeps one entry per algorithm, failing on entries that differ.
func agreeing(es []SumEntry) ([]SumEntry, error) {
	var out []SumEntry
	for _, e := range es {
		dup := false
		for _, o := range out {
			if o.Digest.Algorithm != e.Digest.Algorithm {
				continue
			}
			if !bytes.Equal(o.Digest.Value, e.Digest.Value) {
				return nil, fmt.Errorf("lines %d and %d give %s two %s digests", o.Line, e.Line, e.Name, e.Digest.Algorithm)
			}
			dup = true
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out, nil
}

// sumLines parses every line it recognises. A UTF-8 byte order mark (a
// file saved by a Windows editor) is not part of the first line: read
// into it, that line's entry was lost, and the look-up fell back to
// another file's line.
func sumLines(data []byte, alg string) ([]SumEntry, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), maxSumsLine)
	var out []SumEntry
	for n := 1; sc.Scan(); n++ {
		e, ok, err := sumLine(strings.TrimSuffix(sc.Text(), "\r"), alg)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if ok {
			e.Line = n
			out = append(out, e)
			continue
		}
		for _, e := range fieldLine(strings.TrimSuffix(sc.Text(), "\r")) {
			e.Line = n
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the checksum file: %v (lines are limited to %d bytes)", err, maxSumsLine)
	}
	return out, nil
}

// ParseChecksumLine reads one line of a checksum file as sha256sum (or
// md5sum, sha512sum; an untagged line's algorithm from alg, else the
// length of its hex) or sha256sum --tag writes it; ok is false for a line
// of neither format. hdig sum -c reads such lines beside its own.
func ParseChecksumLine(l, alg string) (e SumEntry, ok bool, err error) {
	e, ok, err = sumLine(strings.TrimSuffix(l, "\r"), alg)
	if ok && e.unusable != nil {
		return e, false, fmt.Errorf("%s: %v", e.Name, e.unusable)
	}
	return e, ok, err
}

// sumLine parses one line; ok is false for a line of neither format.
func sumLine(l, alg string) (SumEntry, bool, error) {
	escaped := strings.HasPrefix(l, `\`)
	if escaped {
		l = l[1:]
	}
	if tag, rest, ok := strings.Cut(l, " ("); ok && isTag(tag) {
		return bsdLine(tag, rest, escaped)
	}
	sum, name, ok := strings.Cut(l, " ")
	if !ok || len(name) < 2 || (name[0] != ' ' && name[0] != '*') {
		return SumEntry{}, false, nil
	}
	name = name[1:]
	if !allHex(sum) {
		return SumEntry{}, false, nil
	}
	b, err := hexValue(sum)
	key := alg
	if key == "" {
		key = hexLengths[len(sum)]
	}
	if err != nil || key == "" {
		return unusableEntry(name, escaped, fmt.Errorf("%d hex digits name no algorithm hdig computes (32 md5, 40 sha, 64 sha-256, 96 sha-384, 128 sha-512)", len(sum)))
	}
	return entry(name, key, b, escaped)
}

// ParseSumLine splits a line as hdig sum prints it ("FILE: " and a field
// value) into the file name and the value. The name ends at the last
// ": ", which a field value as sum prints it never contains; a line
// starting with a backslash has an escaped name.
func ParseSumLine(line string) (name, value string, err error) {
	escaped := strings.HasPrefix(line, `\`)
	if escaped {
		line = line[1:]
	}
	i := strings.LastIndex(line, ": ")
	if i < 0 {
		return "", "", errors.New(`want "FILE: FIELD-VALUE"`)
	}
	name, value = line[:i], strings.TrimSpace(line[i+2:])
	if name == "" {
		return "", "", errors.New("empty file name")
	}
	if escaped {
		if name, err = UnescapeSumName(name); err != nil {
			return "", "", err
		}
	}
	return name, value, nil
}

// fieldLine reads a line as hdig sum prints it, in any --format but hex
// (which is sha256sum's line): "FILE: " and a value ParseExpected reads
// (an RFC 9530 field value, SRI tokens, an OCI digest), each digest an
// entry. A line that is not one gives none, one whose value is not a
// digest an unusable entry (SumEntry.unusable); one with an RFC 9530 value
// that ParseExpected refuses (an unknown algorithm, two values of one
// that differ) gives an entry carrying the error, which is the error of
// its name only (ChecksumEntries), as an unknown BSD tag on another
// file's line is skipped.
func fieldLine(l string) []SumEntry {
	name, value, err := ParseSumLine(l)
	if err != nil {
		return nil
	}
	xs, err := ParseExpected(value, "")
	switch {
	case err != nil && strings.Contains(value, "=:"):
		return []SumEntry{{Name: name, err: err}}
	case err != nil:
		return []SumEntry{{Name: name, unusable: err}}
	}
	out := make([]SumEntry, len(xs))
	for i, x := range xs {
		out[i] = SumEntry{Name: name, Digest: x.Digest, Tagged: !x.Inferred}
	}
	return out
}

// bsdLine parses `TAG (NAME) = HEX` after the tag.
func bsdLine(tag, rest string, escaped bool) (SumEntry, bool, error) {
	i := strings.LastIndex(rest, ") = ")
	if i < 0 {
		return SumEntry{}, false, nil
	}
	name, sum := rest[:i], rest[i+len(") = "):]
	up := strings.ToUpper(tag)
	if strings.HasPrefix(up, "BLAKE2") {
		return SumEntry{}, false, fmt.Errorf("%s (b2sum) is not an algorithm hdig computes: use a SHA256SUMS or SHA512SUMS file", tag)
	}
	key, ok := bsdNames[up]
	if !ok {
		return unusableEntry(name, escaped, fmt.Errorf("%s is not an algorithm hdig computes", tag))
	}
	b, err := hexValue(sum)
	if err != nil {
		if b, err = decodeBase64(sum); err != nil { // cksum --base64
			return SumEntry{}, false, fmt.Errorf("%s digest %q is neither hex nor base64", tag, sum)
		}
	}
	e, ok, err := entry(name, key, b, escaped)
	e.Tagged = true
	return e, ok, err
}

func entry(name, key string, b []byte, escaped bool) (SumEntry, bool, error) {
	if escaped {
		var err error
		if name, err = UnescapeSumName(name); err != nil {
			return SumEntry{}, false, err
		}
	}
	if err := checkSize(key, b); err != nil {
		return SumEntry{}, false, fmt.Errorf("%s: %v", name, err)
	}
	return SumEntry{Name: name, Digest: Digest{Algorithm: key, Value: b}}, true, nil
}

// unusableEntry is a line that names a file but gives no digest hdig
// checks (SumEntry.unusable).
func unusableEntry(name string, escaped bool, why error) (SumEntry, bool, error) {
	if escaped {
		var err error
		if name, err = UnescapeSumName(name); err != nil {
			return SumEntry{}, false, err
		}
	}
	return SumEntry{Name: name, unusable: why}, true, nil
}

// isTag says s can be the tag of a BSD line: a hash's name (SHA256,
// SHA2-256, BLAKE2b, SHA3-256), letters, digits and dashes.
func isTag(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return s != ""
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return s != ""
}

func hexValue(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, errors.New("odd length")
	}
	return decodeHex(s)
}

// UnescapeSumName undoes coreutils' escaping of `\\`, `\n` and `\r` in a
// file name of a sha256sum-style line (used by hdig sum -c too).
func UnescapeSumName(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i++; i == len(s) {
			return "", fmt.Errorf("file name %q ends with a lone backslash", s)
		}
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf("bad escape %q in file name", s[i-1:i+1])
		}
	}
	return b.String(), nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
