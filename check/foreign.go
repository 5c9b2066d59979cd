package check

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hdig/hdig/verify"
)

// outsideFields are the digest fields of a header or trailer section
// outside RFC 9530: Content-MD5 and those of reprOutsideFields. On the full
// identity GET they all cover the representation.
func outsideFields(h http.Header) []verify.DigestField {
	return present(append([]verify.DigestField{verify.ParseContentMD5(h)}, reprOutsideFields(h)...))
}

// reprOutsideFields are the digest fields outside RFC 9530 that describe
// the representation whatever the message carries (a 226's delta too):
// Unencoded-Digest, the obsolete RFC 3230 Digest (which hdig get checks
// beside Repr-Digest), x-goog-hash and x-amz-checksum-*. Content-MD5
// covers the content as sent, so it is not one of them.
func reprOutsideFields(h http.Header) []verify.DigestField {
	fs := []verify.DigestField{verify.ParseUnencodedDigest(h), verify.ParseLegacyDigest(h.Values(verify.LegacyDigest))}
	return present(append(fs, verify.ForeignFields(h)...))
}

func present(fs []verify.DigestField) []verify.DigestField {
	var out []verify.DigestField
	for _, f := range fs {
		if f.Present {
			out = append(out, f)
		}
	}
	return out
}

// sectionsOf lists the fields of(…) of r's header and of its trailer, the
// trailer's named "… (trailer)": a trailer's fields are judged as the
// header's (hdig get does so). An Unencoded-Digest of a response with a
// content coding covers the decoded bytes, which the audit did not decode
// and so cannot compare: it is set aside, as hdig get without --compressed
// does (fetch.unencodedChecks), not compared with the encoded bytes.
func sectionsOf(r *response, of func(http.Header) []verify.DigestField) []verify.DigestField {
	fs := bothSections(r, of)
	if ce := r.encoding(); ce != "" {
		for i, f := range fs {
			if strings.TrimSuffix(f.Name, " (trailer)") == verify.UnencodedDigest && f.Ignored == "" {
				fs[i].Ignored = fmt.Sprintf("of the %s-decoded bytes, not of the %s-encoded ones received", ce, ce)
			}
		}
	}
	return fs
}

// judgeOutside is the one rule for fields outside RFC 9530: each member
// hdig computed (sums) that matches is ok, each that does not is bad; a
// field ignored (an S3 composite, a transcoded x-goog-hash) or malformed,
// or with no member hdig can compute, is a note, never a match. A field
// compared with nothing only because sums lack algorithms hdig computes
// (the GET over --max-body: its Repr-Digest stands in for its bytes,
// reprSums) is set aside: the user's cap, said but no fault (sheet.aside).
func judgeOutside(fs []verify.DigestField, sums []verify.Digest) (ok, bad, notes, aside []string) {
	for _, f := range fs {
		switch {
		case f.Ignored != "" && len(f.Digests) > 0:
			notes = append(notes, fmt.Sprintf("%s is %s: ignored", f.Name, f.Ignored))
			continue
		case f.Ignored != "":
			notes = append(notes, fmt.Sprintf("%s is malformed (%s)", f.Name, f.Ignored))
			continue
		}
		o := compare(f, sums)
		if len(o.matched) > 0 {
			ok = append(ok, fmt.Sprintf("%s %s", f.Name, strings.Join(o.matched, ", ")))
		}
		switch { // nothing compared: a note or set aside, never a match
		case len(o.matched)+len(o.wrong) > 0:
		case len(o.unhashed) > 0:
			aside = append(aside, fmt.Sprintf("%s (%s)", f.Name, strings.Join(o.unhashed, ", ")))
		default:
			notes = append(notes, fmt.Sprintf("%s has no member hdig can compute (%s)", f.Name, strings.Join(o.unknown, ", ")))
		}
		for _, d := range o.wrong {
			got, _ := lookup(sums, d.Algorithm)
			bad = append(bad, fmt.Sprintf("%s %s is %s, want %s", f.Name, d.Algorithm, verify.Base64(d.Value), verify.Base64(got)))
		}
		for _, s := range f.Skipped {
			notes = append(notes, fmt.Sprintf("%s %s", f.Name, s))
		}
	}
	return ok, bad, notes, aside
}

// checkForeign decides foreign-digest.match on the full GET (identity, so
// Unencoded-Digest and Content-MD5 cover the same bytes as Repr-Digest):
// which fields outside RFC 9530 the origin sends and whether each value
// hdig can compute matches. A composite S3 checksum is reported, not
// compared; a malformed field warns. Its body over --max-body, they are
// compared with its Repr-Digest, as the HEAD's are (reprSums); what that
// leaves is set aside, said (asideOutside).
func (a *audit) checkForeign() {
	id, r := "foreign-digest.match", a.full
	fs := sectionsOf(r, outsideFields)
	if len(fs) == 0 {
		a.s.skip(id, "the origin sends no digest field outside RFC 9530 (x-goog-hash, x-amz-checksum-*, Content-MD5, Unencoded-Digest, the obsolete Digest)")
		return
	}
	sums, against := r.sums, "the "+bytesOf(r.size)+" received"
	if r.sums == nil || r.capped {
		sums, against = a.reprSums(), "its Repr-Digest (its body, over --max-body, was not hashed)"
	}
	ok, bad, notes, aside := judgeOutside(fs, sums)
	a.asideOutside(id, "the GET", aside)
	msg := func(head string, parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return head + ": " + strings.Join(all, "; ")
	}
	switch {
	case len(bad) > 0:
		a.s.fail(id, msg(fmt.Sprintf("%d of the origin's digests outside RFC 9530 do not match %s", len(bad), against), bad, notes))
	case len(notes) > 0 && len(ok) == 0:
		a.s.warn(id, msg("nothing outside RFC 9530 could be checked", notes))
	case len(notes) > 0:
		a.s.warn(id, msg("match", ok, notes))
	case len(ok) == 0: // all set aside: said, no fault
		a.s.skip(id, names(fs)+" sent, none compared")
	default:
		a.s.pass(id, msg("match "+against, ok))
	}
}

func names(fs []verify.DigestField) string {
	var ns []string
	for _, f := range fs {
		ns = append(ns, f.Name)
	}
	return strings.Join(ns, ", ")
}

// bothSections lists the fields of(…) of r's header and of its trailer,
// the trailer's named "… (trailer)", as they are.
func bothSections(r *response, of func(http.Header) []verify.DigestField) []verify.DigestField {
	fs := of(r.header)
	for _, f := range of(r.trailer) {
		f.Name += " (trailer)"
		fs = append(fs, f)
	}
	return fs
}

// unencodedOf is the Unencoded-Digest field of h, when present.
func unencodedOf(h http.Header) []verify.DigestField {
	return present([]verify.DigestField{verify.ParseUnencodedDigest(h)})
}
