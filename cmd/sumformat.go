package cmd

import (
	"encoding/hex"
	"strings"

	"github.com/hdig/hdig/verify"
)

// sumFormat is hdig sum's --format: how digests are printed.
type sumFormat string

// The --format values.
const (
	formatRFC9530 sumFormat = "rfc9530" // FILE: sha-256=:b64:
	formatSRI     sumFormat = "sri"     // FILE: sha384-b64 (an integrity= attribute; several space-separated)
	formatOCI     sumFormat = "oci"     // FILE: sha256:hex
	formatHex     sumFormat = "hex"     // HEX  FILE, as sha256sum prints it (one algorithm)
)

// check fails a format that cannot print the algorithms.
func (f sumFormat) check(algs []verify.Algorithm, checking bool) error {
	switch f {
	case formatRFC9530:
		return nil
	case formatSRI, formatOCI:
		for _, a := range algs {
			if verify.FormatSRI(verify.Digest{Algorithm: a.Key}) == "" {
				return usageErrorf("--format %s: %s has no %s name (sha-256, sha-384, sha-512 do)", f, a.Key, strings.ToUpper(string(f)))
			}
		}
	case formatHex:
		if len(algs) != 1 {
			return usageErrorf("--format hex prints one algorithm, as sha256sum does; got %d", len(algs))
		}
	default:
		return usageErrorf("--format %q: want rfc9530, sri, oci or hex", string(f))
	}
	if checking {
		return usageErrorf("--format %s applies to printing; -c reads the rfc9530 lines sum prints", f)
	}
	return nil
}

// line prints the digests of one file; alone prints just the value (the
// only input was standard input).
func (f sumFormat) line(name string, ds []verify.Digest, alone bool) string {
	var parts []string
	for _, d := range ds {
		switch f {
		case formatSRI:
			parts = append(parts, verify.FormatSRI(d))
		case formatOCI:
			parts = append(parts, verify.FormatOCI(d))
		case formatHex:
			parts = append(parts, hex.EncodeToString(d.Value))
		}
	}
	value := strings.Join(parts, " ")
	switch {
	case f == formatRFC9530:
		value = verify.FormatDigests(ds)
	case alone:
	case f == formatHex:
		return hexSumLine(value, name)
	}
	if alone {
		return value
	}
	return formatSumLine(listName(name, value), value)
}

// listName is the name printed on sum's "FILE: VALUE" line: "./" goes
// before a name that -c and get --checksum-file would read otherwise, as
// a comment ("#…", skipped) or as the line of sha256sum or sha256sum
// --tag for another name ("HEX  x: …" names "x: …", "SHA256 (x) = …").
// The same file, and the line reads back as printed. The lines are tried
// as an untagged line of a named algorithm is read, so that hex of any
// even length counts (an --expect-alg reading), not only the lengths of
// algorithms.
func listName(name, value string) string {
	l := formatSumLine(name, value)
	if _, ok, err := verify.ParseChecksumLine(l, "sha-256"); ok || err != nil || strings.HasPrefix(l, "#") {
		return "./" + name
	}
	return name
}

// hexSumLine is sha256sum's `HEX  FILE`, escaped as coreutils escapes.
func hexSumLine(sum, name string) string {
	if !strings.ContainsAny(name, "\\\n\r") {
		return sum + "  " + name
	}
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`)
	return `\` + sum + "  " + r.Replace(name)
}
