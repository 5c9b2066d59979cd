package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hdig/hdig/verify"
)

// checkRepr decides repr-digest.present, .syntax, .algorithm and .match on
// the full GET.
func (a *audit) checkRepr() {
	f, r := a.repr, a.full
	if !f.Present {
		msg := fmt.Sprintf("no Repr-Digest on GET 200 (sent Want-Repr-Digest: %s)", verify.FormatWant(a.opts.Want))
		if len(r.values(verify.LegacyDigest)) > 0 {
			msg += "; it sends the obsolete RFC 3230 Digest field instead (RFC 9530 App. E)"
		}
		if v, ok := lookup(r.sums, "sha-256"); ok {
			msg += "; want e.g. Repr-Digest: " + member(verify.Digest{Algorithm: "sha-256", Value: v})
		}
		a.s.fail("repr-digest.present", msg)
		a.s.skip("repr-digest.syntax", "no Repr-Digest to parse")
		a.s.skip("repr-digest.algorithm", "no Repr-Digest")
		a.s.skip("repr-digest.match", "no Repr-Digest")
		return
	}
	where := "header"
	if len(r.header.Values(verify.ReprDigest)) == 0 {
		where = "trailer"
	}
	a.s.pass("repr-digest.present", fmt.Sprintf("GET 200 carries Repr-Digest (%s)", where))
	if !a.checkSyntax("repr-digest.syntax", "GET 200", f) {
		a.s.skip("repr-digest.algorithm", "Repr-Digest is malformed")
		a.s.skip("repr-digest.match", "Repr-Digest is malformed")
		return
	}
	a.checkAlgorithms(f)
	a.checkMatch("repr-digest.match", r, f, "the representation")
}

// checkSyntax decides a syntax check of an Integrity field; it reports
// whether the field is usable.
func (a *audit) checkSyntax(id, where string, f verify.DigestField) bool {
	switch why := malformed(f); {
	case why != "":
		a.s.fail(id, fmt.Sprintf("%s on %s is %s; want a Dictionary of Byte Sequences such as sha-256=:<base64>:", f.Name, where, why))
		return f.Ignored == ""
	case len(f.Duplicates) > 0:
		a.s.warn(id, fmt.Sprintf("%s on %s repeats %s: the last value wins; send each algorithm once", f.Name, where, strings.Join(f.Duplicates, ", ")))
	default:
		a.s.pass(id, fmt.Sprintf("%s on %s is a Dictionary of Byte Sequences", f.Name, where))
	}
	return true
}

// malformed says what makes a digest field one recipients ignore, wholly or
// in part, "" when it is a Dictionary of Byte Sequences: a field that does
// not parse (whether or not some members were salvaged: a match of those
// proves nothing), or one with members that are not Byte Sequences. It is
// the one rule for a field on any response the audit reads: the GET's
// (checkSyntax) and every other's, a HEAD's, a 206's, a variant's.
func malformed(f verify.DigestField) string {
	switch {
	case !f.Present:
		return ""
	case f.Ignored != "":
		return fmt.Sprintf("malformed (%s), so recipients must ignore it", f.Ignored)
	case f.Salvaged:
		return fmt.Sprintf("malformed (%s), so recipients must ignore it", strings.Join(f.Skipped, "; "))
	case len(f.Skipped) > 0:
		return fmt.Sprintf("a Dictionary with members that are not Byte Sequences (%s), which recipients ignore", strings.Join(f.Skipped, "; "))
	}
	return ""
}

// checkAlgorithms decides repr-digest.algorithm: Active algorithms (and
// deprecated ones named in --accept) pass; other deprecated ones warn; a
// field with no registered algorithm at all fails.
func (a *audit) checkAlgorithms(f verify.DigestField) {
	var good, weak, unknown []string
	for _, d := range f.Digests {
		alg, ok := verify.Lookup(d.Algorithm)
		switch {
		case !ok:
			unknown = append(unknown, d.Algorithm)
		case alg.Status == verify.Active || slices.Contains(a.opts.Accept, alg.Key):
			good = append(good, alg.Key)
		default:
			weak = append(weak, alg.Key)
		}
	}
	id := "repr-digest.algorithm"
	switch {
	case len(good) == 0 && len(weak) == 0:
		a.s.fail(id, fmt.Sprintf("Repr-Digest uses only unregistered algorithms (%s) that no recipient can check; want sha-256 or sha-512", strings.Join(unknown, ", ")))
	case len(weak) > 0:
		a.s.warn(id, fmt.Sprintf("Repr-Digest uses deprecated %s (weak, RFC 9530 §5); want sha-256 or sha-512", strings.Join(weak, ", ")))
	case len(unknown) > 0:
		a.s.warn(id, fmt.Sprintf("Repr-Digest uses %s and unregistered %s, which recipients ignore", strings.Join(good, ", "), strings.Join(unknown, ", ")))
	default:
		a.s.pass(id, fmt.Sprintf("Repr-Digest uses %s", strings.Join(good, ", ")))
	}
}

// checkMatch compares an Integrity field with the digests of a body: what
// covers names the bytes in messages ("the representation").
func (a *audit) checkMatch(id string, r *response, f verify.DigestField, covers string) {
	if r.capped {
		a.s.skip(id, fmt.Sprintf("%s body is larger than --max-body (%s): not hashed", r.label, bytesOf(a.opts.MaxBody)))
		return
	}
	if differ := disagreement(r, f.Name); differ != "" {
		a.s.fail(id, differ)
		return
	}
	o := compare(f, r.sums)
	switch {
	case len(o.wrong) > 0:
		got := members(o.wrong)
		a.s.fail(id, fmt.Sprintf("%s %s on %s does not match the %s of %s; want %s", f.Name, got, r, bytesOf(r.size), covers, wantOf(o.wrong, r.sums)))
	case len(o.matched) == 0:
		a.s.skip(id, fmt.Sprintf("%s on %s has no algorithm hdig can compute (%s)", f.Name, r, keysOf(f)))
	default:
		a.s.pass(id, fmt.Sprintf("%s %s matches the %s of %s", f.Name, strings.Join(o.matched, ", "), bytesOf(r.size), covers))
	}
}

// disagreement describes how the header and trailer instances of a field
// differ (verify.Agree), "" when they agree or one is absent.
func disagreement(r *response, name string) string {
	hdr := verify.ParseDigestField(name, r.header.Values(name))
	tr := verify.ParseDigestField(name, r.trailer.Values(name))
	var parts []string
	for _, c := range verify.Agree(hdr, tr) {
		parts = append(parts, fmt.Sprintf("%s %s differs between header and trailer (%s, then %s)", name, c.Algorithm, verify.Base64(c.Expected), verify.Base64(c.Actual)))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + " on " + r.String() + "; want one value"
}

// checkContent decides content-digest.syntax and .match on the full GET.
func (a *audit) checkContent() {
	id := "content-digest.match"
	f := a.full.digests(verify.ContentDigest)
	if !f.Present {
		a.s.skip("content-digest.syntax", "no Content-Digest to parse")
		a.s.skip(id, "no Content-Digest on GET 200 (it is optional)")
		return
	}
	if !a.checkSyntax("content-digest.syntax", "GET 200", f) {
		a.s.skip(id, "Content-Digest is malformed")
		return
	}
	a.checkMatch(id, a.full, f, "content")
}
