package check

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hdig/hdig/verify"
)

// outcome is the comparison of a field's members with computed digests.
type outcome struct {
	matched []string        // algorithms whose value matched
	wrong   []verify.Digest // members whose value did not match
	unknown []string        // members with nothing to compare them to
	// unhashed are those of unknown of an algorithm hdig computes, absent
	// from the digests compared with: the bytes were not hashed (a GET
	// over --max-body, whose Repr-Digest stands in for them, reprSums).
	unhashed []string
}

// anyAlgorithm counts a match of every algorithm hdig computes: check
// judges whether the origin's digests are right, not what proves the bytes.
var anyAlgorithm = verify.Policy{Accept: verify.AllKeys()}

// compare checks every member of f against the computed digests with
// verify.Compare, the one comparison of hdig: any computed member that
// does not match, or has the wrong length, is wrong; members of unknown or
// uncomputed algorithms are set aside alone.
func compare(f verify.DigestField, sums []verify.Digest) outcome {
	var o outcome
	for _, c := range verify.Compare(f, sums, anyAlgorithm) {
		switch c.Result {
		case verify.Match:
			o.matched = append(o.matched, c.Algorithm)
		case verify.Mismatch:
			o.wrong = append(o.wrong, verify.Digest{Algorithm: c.Algorithm, Value: c.Expected})
		default:
			o.unknown = append(o.unknown, c.Algorithm)
			if c.Reason == verify.NotComputed {
				o.unhashed = append(o.unhashed, c.Algorithm)
			}
		}
	}
	return o
}

// lookup returns the value for an algorithm.
func lookup(ds []verify.Digest, alg string) ([]byte, bool) {
	for _, d := range ds {
		if d.Algorithm == alg {
			return d.Value, true
		}
	}
	return nil, false
}

// allEqualIn reports whether every member of f matches its algorithm's
// value in ds.
func allEqualIn(f verify.DigestField, ds []verify.Digest) bool {
	o := compare(f, ds)
	return len(o.matched) > 0 && len(o.wrong) == 0 && len(o.unknown) == 0
}

// member formats one member as it appears in a field: sha-256=:…:.
func member(d verify.Digest) string { return verify.FormatDigests([]verify.Digest{d}) }

// members lists members as they appear in a field, each once, two values
// of one algorithm (a header's and a trailer's) both: a Dictionary
// (verify.FormatDigests) would keep only one of them.
func members(ds []verify.Digest) string {
	var out []string
	for _, d := range ds {
		if m := member(d); !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

// wantOf formats the computed values for the algorithms of the given
// members: what the field should have said.
func wantOf(wrong []verify.Digest, sums []verify.Digest) string {
	var want []verify.Digest
	for _, d := range wrong {
		if v, ok := lookup(sums, d.Algorithm); ok {
			want = append(want, verify.Digest{Algorithm: d.Algorithm, Value: v})
		}
	}
	return verify.FormatDigests(want)
}

// keysOf lists the algorithms of a field: "sha-256, sha-512".
func keysOf(f verify.DigestField) string {
	keys := make([]string, len(f.Digests))
	for i, d := range f.Digests {
		keys[i] = d.Algorithm
	}
	return strings.Join(keys, ", ")
}

// bytesOf describes a byte count: "19 bytes".
func bytesOf(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// preferred returns the registered algorithms of the highest non-zero
// weight in prefs, as a sender would choose them (verify.Choose).
func preferred(prefs []verify.Pref) []string {
	var out []string
	for _, a := range verify.Choose(prefs, "") {
		out = append(out, a.Key)
	}
	return out
}

// emptySums are the digests of empty content with every algorithm.
func emptySums() []verify.Digest { return verify.EmptyDigests(verify.Algorithms) }

// reprSums are the digests another response's Repr-Digest must match:
// those of the GET body when it was read whole (hashed with every
// algorithm hdig computes), then, for algorithms not computed (the body
// was over --max-body or broke off), the GET's own Repr-Digest members.
// The bytes come first: when the GET's Repr-Digest is wrong
// (repr-digest.match fails it), a response whose field is right is not
// reported as the wrong one.
func (a *audit) reprSums() []verify.Digest {
	var sums []verify.Digest
	if !a.full.capped && a.full.err == nil {
		sums = a.full.sums
	}
	out := append([]verify.Digest(nil), sums...)
	for _, d := range a.repr.Digests {
		if _, ok := lookup(sums, d.Algorithm); !ok {
			out = append(out, d)
		}
	}
	return out
}

// outsideWrong describes the members of r's fields of(…), in its header
// or its trailer, that differ from ref (bad, "" when none does), and what
// of them could not be compared (notes: a field with no member hdig
// computes, malformed, ignored), which the caller says with its check's
// result (noteOutside), never drops. Fields outside RFC 9530 are judged by
// foreign-digest.match's rule (judgeOutside) wherever the audit compares a
// response's digests.
func outsideWrong(r *response, of func(http.Header) []verify.DigestField, ref []verify.Digest) (bad string, notes []string) {
	_, b, notes, aside := judgeOutside(sectionsOf(r, of), ref)
	return strings.Join(b, "; "), append(notes, aside...)
}

// noteOutside has the result of check id say the notes of outsideWrong:
// on what, the fields that could not be compared with of what. A pass
// with a note is a warning (sheet.note).
func (a *audit) noteOutside(id, what, of string, notes []string) {
	for _, n := range notes { // each once: two paths may judge one field
		a.s.note(id, fmt.Sprintf("on %s, not compared with %s: %s", what, of, n))
	}
}

// asideOutside has the result of check id say the fields of what that
// judgeOutside set aside, the GET's bytes not hashed (over --max-body):
// said, as every note, but the status kept: the user's own cap is not the
// origin's fault, and must not fail a right origin under --strict.
func (a *audit) asideOutside(id, what string, aside []string) {
	if len(aside) > 0 {
		a.s.aside(id, fmt.Sprintf("on %s, not compared, the GET body being over --max-body (%s), not hashed: %s", what, bytesOf(a.opts.MaxBody), strings.Join(aside, "; ")))
	}
}

// decodedApart is of(…) without Unencoded-Digest, for an encoded response
// whose decoded bytes a check of its own compares that field with
// (encoding.decode, dictionary.unencoded): where its encoded bytes are
// judged, the field is neither compared with them nor said to be set
// aside (sectionsOf), which would make a right field a warning.
func decodedApart(of func(http.Header) []verify.DigestField) func(http.Header) []verify.DigestField {
	return func(h http.Header) []verify.DigestField {
		return slices.DeleteFunc(of(h), func(f verify.DigestField) bool { return f.Name == verify.UnencodedDigest })
	}
}

// outsideFails fails id when r, a response that should describe the GET's
// representation (a HEAD, a 206, a Want-Repr-Digest variant), carries a
// field outside RFC 9530 about the representation (reprOutsideFields: the
// obsolete Digest, Unencoded-Digest, x-goog-hash, x-amz-checksum-*) that
// does not match that representation (versionRef), and reports whether it
// did. A HEAD carries the GET's header fields, and hdig get compares a
// 206's with the whole representation (fetch's reprFields) and each
// wherever it appears, so this does not wait for a Repr-Digest on r or on
// the GET. what names r in the message, of what it should describe.
func (a *audit) outsideFails(ctx context.Context, id string, r *response, what, of string) bool {
	if len(sectionsOf(r, reprOutsideFields)) == 0 {
		return false
	}
	ref, note, ok := a.versionRef(ctx, r) // the second GET, if any, is sent once
	if !ok {
		a.notJudged(id, what, sectionsOf(r, reprOutsideFields), note)
		return false
	}
	_, bad, notes, aside := judgeOutside(sectionsOf(r, reprOutsideFields), ref)
	if len(bad) > 0 {
		a.s.fail(id, fmt.Sprintf("%s carries a digest field that is not of %s: %s%s", what, of, strings.Join(append(bad, notes...), "; "), note))
		return true
	}
	// What could not be compared is said, as foreign-digest.match says it
	// of the GET's fields, not dropped: the check's result carries it.
	if len(notes) > 0 {
		a.s.note(id, fmt.Sprintf("on %s, not compared with %s: %s", what, of, strings.Join(notes, "; ")))
	}
	a.asideOutside(id, what, aside)
	return false
}

// notJudged has the result of check id say that the fields fs of what
// were not judged, why (versionRef's note when it found no reference):
// each path says what it leaves, the Repr-Digest's path only of a
// Repr-Digest. Nothing when fs is empty.
func (a *audit) notJudged(id, what string, fs []verify.DigestField, why string) {
	if len(fs) > 0 {
		a.s.note(id, fmt.Sprintf("on %s, %s not judged%s", what, names(fs), why))
	}
}

// contentMD5Of is the Content-MD5 field of h, when present.
func contentMD5Of(h http.Header) []verify.DigestField {
	return present([]verify.DigestField{verify.ParseContentMD5(h)})
}

// contentMD5Wrong describes r's Content-MD5, in its header or trailer,
// when it does not match r's content ("" otherwise), and what of it could
// not be compared (outsideWrong). Content-MD5 covers the content as sent,
// as Content-Digest does, and hdig get compares it with the same bytes (a
// 206's part, an encoded variant's encoded bytes, a 226's delta), so
// wherever the audit compares a response's Content-Digest with its content
// it compares Content-MD5 too, by foreign-digest.match's rule
// (judgeOutside).
func contentMD5Wrong(r *response) (string, []string) {
	if r.capped || r.sums == nil {
		return "", nil
	}
	return outsideWrong(r, contentMD5Of, r.sums)
}

// ownWrong describes the digest fields of r, a 200 read whole, that do not
// match its own bytes, "" when none does: Repr-Digest and Content-Digest
// by compare, the fields outside RFC 9530 of(…) (outsideFields: Content-MD5,
// the obsolete Digest, x-goog-hash, x-amz-checksum-*, Unencoded-Digest)
// by foreign-digest.match's rule (judgeOutside), header and trailer alike;
// notes are what of those could not be compared (outsideWrong). A 200's
// representation is its content, so each covers the bytes received. It is
// for a response the audit uses as it is (a control file): hdig get
// verifies such a response as any other.
func ownWrong(r *response, of func(http.Header) []verify.DigestField) (string, []string) {
	if r.capped || r.sums == nil {
		return "", nil
	}
	var bad []string
	for _, name := range []string{verify.ReprDigest, verify.ContentDigest} {
		if o := compare(r.digests(name), r.sums); len(o.wrong) > 0 {
			bad = append(bad, fmt.Sprintf("%s %s does not match its %s; want %s", name, members(o.wrong), bytesOf(r.size), wantOf(o.wrong, r.sums)))
		}
	}
	s, notes := outsideWrong(r, of, r.sums)
	if s != "" {
		bad = append(bad, s)
	}
	return strings.Join(bad, "; "), notes
}

// ownWrongFails fails id when r, a 200 the checks of id skip (an answer
// in no coding, or in one they do not judge), carries a digest that does
// not match its bytes (ownWrong), and reports whether it did: hdig get,
// asking as the audit did, gets that answer and verifies it as any other.
// What could not be compared is said with id's result; why says why the
// checks skip, what names r.
func (a *audit) ownWrongFails(id string, r *response, what, why string) bool {
	bad, notes := ownWrong(r, outsideFields)
	a.noteOutside(id, what, "its "+bytesOf(r.size), notes)
	if bad == "" {
		return false
	}
	a.s.fail(id, fmt.Sprintf("%s, and %s carries a digest that does not match its %s: %s; a client asking so gets it and fails", why, what, bytesOf(r.size), bad))
	return true
}

// reprWanted names, in messages, the Repr-Digest another response should
// carry: the GET's value.
func (a *audit) reprWanted() string {
	return "the GET's value " + verify.FormatDigests(a.repr.Digests)
}
