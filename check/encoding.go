package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/verify"
)

// checkEncoding asks for an encoded variant and decides
// encoding.repr-digest and encoding.content-digest. It returns the
// response, nil when there was none.
func (a *audit) checkEncoding(ctx context.Context) *response {
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", EncodingsAsked)
	r, refused, err := a.doRetryAfter(ctx, request{label: "GET Accept-Encoding: " + EncodingsAsked, method: http.MethodGet, header: h, keepAll: true})
	defer r.close()
	ids := []string{"encoding.repr-digest", "encoding.content-digest", "encoding.decode", "encoding.vary"}
	switch {
	case err != nil:
		a.s.fail(ids[0], fmt.Sprintf("GET with Accept-Encoding: %s failed: %v; want 200", EncodingsAsked, err))
		a.s.skipUndecided("the request failed", ids...)
		return nil
	case r.err != nil:
		a.s.fail(ids[0], fmt.Sprintf("the encoded body broke off after %s: %v", bytesOf(r.size), r.err))
		a.s.skipUndecided("the body broke off", ids...)
		return nil
	case brokenForCoding(r.status):
		a.s.fail(ids[0], fmt.Sprintf("GET with Accept-Encoding: %s returned %d %s%s where the identity GET returned 200; want 200 (in any coding, or none)",
			EncodingsAsked, r.status, http.StatusText(r.status), retryNote(refused)))
		a.s.skipUndecided("the request failed", ids...)
		return nil
	case r.status != http.StatusOK:
		msg := fmt.Sprintf("GET with Accept-Encoding: %s returned %d, not 200", EncodingsAsked, r.status)
		a.s.skipUndecided(msg, ids...)
		return nil
	case r.encoding() == "":
		msg := fmt.Sprintf("the origin sent no content coding for Accept-Encoding: %s", EncodingsAsked)
		a.ownWrongFails(ids[0], r, "the answer", msg) // hdig get --compressed gets it
		a.s.skipUndecided(msg, ids...)
		return r
	}
	a.checkEncodedField(ids[0], r, verify.ReprDigest)
	a.checkEncodedField(ids[1], r, verify.ContentDigest)
	a.checkDecoded(ctx, r)
	a.checkEncodingVary(r)
	return r
}

// checkEncodingVary decides encoding.vary: the answer for Accept-Encoding
// came in a content coding, the GET's for identity in none, so the
// response varies on Accept-Encoding, and both say so (RFC 9110 §12.5.5):
// else a cache may hand the coded one to a client that accepts no coding.
func (a *audit) checkEncodingVary(r *response) {
	id := "encoding.vary"
	var lacking []string
	for _, x := range []*response{r, a.full} {
		if !varies(x.header, "accept-encoding") {
			lacking = append(lacking, fmt.Sprintf("%s's Vary is %q", x.label, strings.Join(x.header.Values("Vary"), ", ")))
		}
	}
	if len(lacking) > 0 {
		a.s.warn(id, fmt.Sprintf("the response comes %s-coded for Accept-Encoding: %s and in no coding for identity, but %s; want Vary: Accept-Encoding on both (a cache may serve the coded one to a client that accepts no coding)", r.encoding(), EncodingsAsked, strings.Join(lacking, ", ")))
		return
	}
	a.s.pass(id, fmt.Sprintf("the %s-coded and the identity responses carry Vary: Accept-Encoding", r.encoding()))
}

// varies reports whether h's Vary names field (lower case) or is *.
func varies(h http.Header, field string) bool {
	for _, line := range h.Values("Vary") {
		for _, tok := range strings.Split(line, ",") {
			if t := strings.ToLower(strings.TrimSpace(tok)); t == field || t == "*" {
				return true
			}
		}
	}
	return false
}

// brokenForCoding reports whether an error status answers a request
// accepting a content coding (or a dictionary) that the origin served
// without one. RFC 9110 §12.5.3 lets an origin refuse a coding with 406
// (it should rather ignore the field); any other error means a client that
// accepts the coding, every browser among them, gets nothing.
func brokenForCoding(status int) bool {
	return status >= 400 && status != http.StatusNotAcceptable
}

// checkDecoded decides encoding.decode: the encoded variant is the same
// representation in another coding (RFC 9110 §8.4), so it decodes to the
// identity GET's bytes. Its digests cover only the encoded bytes: a
// variant of another document passes them all, and a client that
// verified it (hdig get --compressed) writes that other document.
func (a *audit) checkDecoded(ctx context.Context, r *response) {
	id, ce := "encoding.decode", r.encoding()
	// Not decoded, the variant's Unencoded-Digest, which hdig get
	// --compressed compares with the decoded bytes, went unjudged: the
	// skip says so, never as though there were nothing to compare.
	undecoded := func(why string) {
		if fs := bothSections(r, unencodedOf); len(fs) > 0 {
			why += fmt.Sprintf("; the variant's %s, of the decoded bytes, was not compared", names(fs))
		}
		a.s.skip(id, why)
	}
	if r.capped {
		undecoded(fmt.Sprintf("the %s body is larger than --max-body (%s): not decoded", ce, bytesOf(a.opts.MaxBody)))
		return
	}
	dec, done, err := fetch.Decoder(r.body(), ce)
	if errors.Is(err, fetch.ErrUnsupportedCoding) {
		undecoded(fmt.Sprintf("Content-Encoding %s: %v", ce, err))
		return
	}
	var sums []verify.Digest
	var n int64
	if err == nil {
		defer done()
		// Every algorithm: the variant's Unencoded-Digest, of these
		// bytes, may name any.
		sums, n, err = verify.Sum(io.LimitReader(dec, a.opts.MaxBody+1), verify.All)
	}
	switch {
	case err != nil:
		a.s.fail(id, fmt.Sprintf("the %s body (%s) does not decode: %v", ce, bytesOf(r.size), err))
		return
	case n > a.opts.MaxBody:
		undecoded(fmt.Sprintf("the %s body decodes to more than --max-body (%s): not compared", ce, bytesOf(a.opts.MaxBody)))
		return
	}
	// Its Unencoded-Digest covers the decoded bytes: hdig get --compressed
	// compares it with them, so the audit does, by foreign-digest.match's
	// rule.
	_, bad, notes, aside := judgeOutside(bothSections(r, unencodedOf), sums)
	notes = append(notes, aside...) // none: the decoded bytes were hashed
	if len(bad) > 0 {
		a.s.fail(id, fmt.Sprintf("the %s variant's Unencoded-Digest does not match its %s decoded: %s", ce, bytesOf(n), strings.Join(append(bad, notes...), "; ")))
		return
	}
	// What could not be compared is said, not dropped (outsideFails).
	if len(notes) > 0 {
		a.s.note(id, fmt.Sprintf("on the %s variant, not compared with its %s decoded: %s", ce, bytesOf(n), strings.Join(notes, "; ")))
	}
	// The identity's bytes, which the decoded ones must be, are needed
	// only from here: the Unencoded-Digest was judged without them.
	want, hashed := lookup(a.full.sums, "sha-256")
	switch {
	case a.full.encoding() != "":
		a.s.skip(id, fmt.Sprintf("the GET for Accept-Encoding: identity came %s-encoded: no identity bytes to compare the decoded ones with", a.full.encoding()))
		return
	case a.full.capped || !hashed:
		a.s.skip(id, "the identity body was not hashed (--max-body): nothing to compare the decoded bytes with")
		return
	}
	got, _ := lookup(sums, "sha-256")
	if n == a.full.size && bytes.Equal(got, want) {
		a.s.pass(id, fmt.Sprintf("the %s body (%s) decodes to the identity's %s", ce, bytesOf(r.size), bytesOf(n)))
		return
	}
	// The representation may have changed since the GET: a second GET tells.
	// Without one (it failed, or was cut) nothing shows the representation
	// did not change: not judged, as versionRef leaves a HEAD or a 206.
	g := a.getAgain(ctx)
	if g == nil {
		a.s.skip(id, fmt.Sprintf("the %s body decodes to %s other than the identity GET's %s, and a second GET that would tell whether the representation changed failed: not judged", ce, bytesOf(n), bytesOf(a.full.size)))
		return
	}
	if !sameBytes(g, a.full) {
		if v, _ := lookup(g.sums, "sha-256"); g.size == n && bytes.Equal(v, got) {
			a.s.pass(id, fmt.Sprintf("the %s body (%s) decodes to the %s a second GET returned (the representation changed)", ce, bytesOf(r.size), bytesOf(n)))
		} else {
			a.s.skip(id, "the representation changed during the audit: the decoded bytes were not judged")
		}
		return
	}
	a.s.fail(id, fmt.Sprintf("the %s body decodes to %s with %s; want the identity's %s, %s: it is another document", ce, bytesOf(n), member(verify.Digest{Algorithm: "sha-256", Value: got}), bytesOf(a.full.size), member(verify.Digest{Algorithm: "sha-256", Value: want})))
}

// checkEncodedField checks that an Integrity field of an encoded 200
// covers the encoded bytes; a digest of the decoded bytes is the classic
// bug (RFC 9530 §1.3, App. B.4).
func (a *audit) checkEncodedField(id string, r *response, name string) {
	ce := r.encoding()
	f := r.digests(name)
	// The fields outside RFC 9530 about the representation (the obsolete
	// Digest, x-goog-hash and x-amz-checksum-* not transcoded) cover the
	// encoded bytes sent and are compared wherever they appear, with or
	// without a Repr-Digest (hdig get --compressed does so); an
	// Unencoded-Digest, of the decoded bytes, is left to the check that
	// decodes them (decodedApart). What could not be compared is said.
	what, of := fmt.Sprintf("the %s variant", ce), fmt.Sprintf("its %s of encoded content", bytesOf(r.size))
	switch name {
	case verify.ReprDigest:
		if r.capped {
			break // not hashed: the check's own path says so
		}
		bad, notes := outsideWrong(r, decodedApart(reprOutsideFields), r.sums)
		if bad != "" {
			a.s.fail(id, fmt.Sprintf("the %s variant carries a digest field that is not of its %s of encoded content: %s", ce, bytesOf(r.size), bad))
			return
		}
		a.noteOutside(id, what, of, notes)
	case verify.ContentDigest:
		bad, notes := contentMD5Wrong(r)
		if bad != "" {
			a.s.fail(id, fmt.Sprintf("the %s variant's Content-MD5 does not match its %s of encoded content: %s", ce, bytesOf(r.size), bad))
			return
		}
		a.noteOutside(id, what, of, notes)
	}
	switch {
	case !f.Present && name == verify.ReprDigest && a.repr.Usable():
		a.s.warn(id, fmt.Sprintf("the %s variant carries no Repr-Digest but the identity variant does; want one over its encoded bytes", ce))
		return
	case !f.Present:
		a.s.skip(id, fmt.Sprintf("no %s on the %s variant", name, ce))
		return
	case malformed(f) != "":
		a.s.fail(id, fmt.Sprintf("%s on the %s variant is %s", name, ce, malformed(f)))
		return
	case r.capped:
		a.s.skip(id, fmt.Sprintf("the %s body is larger than --max-body (%s): not hashed", ce, bytesOf(a.opts.MaxBody)))
		return
	}
	o := compare(f, r.sums)
	identity := a.full.encoding() == "" && !a.full.capped
	switch {
	case len(o.wrong) > 0 && identity && allEqualIn(f, a.full.sums):
		a.s.fail(id, fmt.Sprintf("%s %s of the %s variant is the digest of the decoded bytes; it must cover the %s of %s-encoded content: want %s", name, members(o.wrong), ce, bytesOf(r.size), ce, wantOf(o.wrong, r.sums)))
	case len(o.wrong) > 0:
		a.s.fail(id, fmt.Sprintf("%s %s of the %s variant does not match its %s of encoded content; want %s", name, members(o.wrong), ce, bytesOf(r.size), wantOf(o.wrong, r.sums)))
	case len(o.matched) == 0:
		a.s.skip(id, fmt.Sprintf("%s on the %s variant has no algorithm hdig can compute (%s)", name, ce, keysOf(f)))
	case identity && name == verify.ReprDigest:
		a.s.pass(id, fmt.Sprintf("the %s variant's Repr-Digest covers its %s of encoded content and differs from the identity variant's", ce, bytesOf(r.size)))
	default:
		a.s.pass(id, fmt.Sprintf("the %s variant's %s covers its %s of encoded content", ce, name, bytesOf(r.size)))
	}
}
