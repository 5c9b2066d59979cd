package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// The dictionary.* checks (RFC 9842): when the GET carries
// Use-As-Dictionary, its syntax; then the URL is fetched again (its body
// becomes the dictionary) and requested with Available-Dictionary naming
// it and Accept-Encoding: dcb, dcz. Encoding a representation against
// itself is legal, so one URL is enough. A dcb or dcz answer must carry
// Vary, name the dictionary in its header, decode to the identity, and
// have Repr-Digest over the encoded and Unencoded-Digest over the decoded
// bytes.
var dictionaryIDs = []string{
	"dictionary.syntax", "dictionary.vary", "dictionary.hash",
	"dictionary.decode", "dictionary.repr-digest", "dictionary.unencoded",
}

// DictionaryEncodings is the Accept-Encoding of the dictionary request.
const DictionaryEncodings = "dcb, dcz"

// skipDictionary skips the dictionary checks not yet decided.
func (a *audit) skipDictionary(msg string) {
	a.s.skipUndecided(msg, dictionaryIDs...)
}

// checkDictionary runs the dictionary checks and returns the dcb or dcz
// response (nil when there was none) for etag.consistency.
func (a *audit) checkDictionary(ctx context.Context) *response {
	use, ok := a.checkUseAsDictionary()
	if !ok {
		return nil
	}
	dict, ok := a.fetchDictionary(ctx)
	if !ok {
		return nil
	}
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", DictionaryEncodings)
	h.Set("Available-Dictionary", dictionary.FormatAvailableDictionary(dictionary.HashOf(dict)))
	if use.ID != "" {
		if v, err := dictionary.FormatDictionaryID(use.ID); err == nil {
			h.Set("Dictionary-ID", v)
		}
	}
	r, refused, err := a.doRetryAfter(ctx, request{label: "GET Available-Dictionary", method: http.MethodGet, header: h, keepAll: true})
	switch {
	case err != nil:
		a.s.fail("dictionary.decode", fmt.Sprintf("GET with Available-Dictionary and Accept-Encoding: %s failed%s: %v; want 200 (in dcb, dcz or no coding)", DictionaryEncodings, retryNote(refused), err))
		a.skipDictionary("the request with Available-Dictionary failed")
		return nil
	case brokenForCoding(r.status):
		a.s.fail("dictionary.decode", fmt.Sprintf("GET with Available-Dictionary and Accept-Encoding: %s returned %d %s%s, though the origin offers the dictionary (Use-As-Dictionary); want 200 (in dcb, dcz or no coding)",
			DictionaryEncodings, r.status, http.StatusText(r.status), retryNote(refused)))
		a.skipDictionary("the request with Available-Dictionary failed")
		r.close()
		return nil
	case r.status != http.StatusOK:
		a.skipDictionary(fmt.Sprintf("GET with Available-Dictionary returned %d, not 200", r.status))
		r.close()
		return nil
	case r.err != nil:
		a.s.fail("dictionary.decode", fmt.Sprintf("the body of GET with Available-Dictionary broke off after %s: %v", bytesOf(r.size), r.err))
		a.skipDictionary("the body broke off")
		r.close()
		return nil
	case r.capped:
		a.skipDictionary(fmt.Sprintf("the body of GET with Available-Dictionary is larger than --max-body (%s): not read whole", bytesOf(a.opts.MaxBody)))
		r.close()
		return nil
	}
	defer r.close()
	ce := r.encoding()
	if ce != dictionary.CodingDCB && ce != dictionary.CodingDCZ {
		a.otherCodingAnswer(r)
		return r
	}
	a.checkDictionaryVary(r)
	body, err := io.ReadAll(r.body())
	if err != nil {
		a.skipDictionary(fmt.Sprintf("the %s body could not be read back: %v", ce, err))
		return r
	}
	if !a.checkDictionaryHash(ce, body, dict) {
		return r
	}
	decoded, ok := a.checkDictionaryDecode(ce, body, dict)
	// Its other digests are of the encoded bytes received too (hdig get
	// compares Content-Digest and Content-MD5 with them): a wrong one fails
	// though Repr-Digest is right; what could not be compared is said with
	// the check's result, decided below. Its Unencoded-Digest is judged by
	// dictionary.unencoded (decodedApart).
	id := "dictionary.repr-digest"
	bad, notes := ownWrong(r, decodedApart(outsideFields))
	a.noteOutside(id, fmt.Sprintf("the %s variant", ce), fmt.Sprintf("its %s of encoded content", bytesOf(r.size)), notes)
	a.checkEncodedField(id, r, verify.ReprDigest)
	if bad != "" && a.s.m[id].Status != Fail {
		a.s.fail(id, fmt.Sprintf("the %s response carries a digest that does not match its %s of encoded content: %s", ce, bytesOf(r.size), bad))
	}
	if ok {
		a.checkUnencoded(r, decoded)
	} else {
		a.s.skip("dictionary.unencoded", fmt.Sprintf("the %s body did not decode", ce))
	}
	return r
}

// otherCodingAnswer skips the dictionary checks for an answer in no
// coding or one other than dcb and dcz, after comparing its digests with
// its bytes: hdig get, holding the dictionary, gets this answer and
// verifies it as any other, so a wrong one fails dictionary.repr-digest.
func (a *audit) otherCodingAnswer(r *response) {
	msg := fmt.Sprintf("the origin answered Available-Dictionary and Accept-Encoding: %s with Content-Encoding %q, not dcb or dcz", DictionaryEncodings, r.encoding())
	a.ownWrongFails("dictionary.repr-digest", r, "the answer", msg)
	a.skipDictionary(msg)
}

// checkUseAsDictionary decides dictionary.syntax from the GET.
// ok is false when the other dictionary checks cannot go on.
func (a *audit) checkUseAsDictionary() (dictionary.Use, bool) {
	id := "dictionary.syntax"
	vals := a.full.header.Values("Use-As-Dictionary")
	if len(vals) == 0 {
		a.skipDictionary("the GET carries no Use-As-Dictionary: the origin offers no dictionary here")
		return dictionary.Use{}, false
	}
	use, err := dictionary.ParseUseAsDictionary(vals)
	if err != nil {
		a.s.fail(id, fmt.Sprintf("%v; want a Dictionary with a string match (RFC 9842 §2.1)", err))
		a.skipDictionary("Use-As-Dictionary is malformed")
		return use, false
	}
	u, err := url.Parse(a.url)
	if err != nil {
		a.skipDictionary(fmt.Sprintf("the URL does not parse: %v", err))
		return use, false
	}
	pat, err := dictionary.CompilePattern(use.Match, u)
	switch {
	case errors.Is(err, dictionary.ErrUnsupported):
		a.s.skip(id, fmt.Sprintf("match %q uses URL-pattern syntax hdig does not implement (%v)", use.Match, err))
		a.skipDictionary("match not understood by hdig")
		return use, false
	case err != nil:
		a.s.fail(id, fmt.Sprintf("match %q is not a usable URL pattern (%v); clients MUST NOT use the dictionary", use.Match, err))
		a.skipDictionary("match is not a usable URL pattern")
		return use, false
	case !pat.SameOrigin():
		a.s.fail(id, fmt.Sprintf("match %q names %s, another origin than the response's (%s): clients MUST NOT store or use the dictionary (RFC 9842 §2.2.2)", use.Match, matchOrigin(use.Match), pat.Origin()))
		a.skipDictionary("match names another origin")
		return use, false
	case !use.Usable():
		a.s.warn(id, fmt.Sprintf("type %q is not raw: clients MUST NOT use the dictionary (RFC 9842 §2.1.4)", use.Type))
		a.skipDictionary("the dictionary type is not raw")
		return use, false
	}
	desc := fmt.Sprintf("match %q, match-dest %v, id %q, type %s", use.Match, use.MatchDest, use.ID, use.Type)
	if !pat.Match(u) {
		a.s.pass(id, desc+"; this URL is outside its own match, so the dictionary serves other URLs")
		a.skipDictionary("the URL is outside the dictionary's match: nothing to re-request")
		return use, false
	}
	a.s.pass(id, desc)
	return use, true
}

// matchOrigin is the scheme://host[:port] an absolute match pattern
// starts with.
func matchOrigin(match string) string {
	scheme, rest, ok := strings.Cut(match, "://")
	if !ok {
		return match
	}
	host, _, _ := strings.Cut(rest, "/")
	host, _, _ = strings.Cut(host, "?")
	return scheme + "://" + host
}

// fetchDictionary fetches the URL again, whole: its body is the
// dictionary.
func (a *audit) fetchDictionary(ctx context.Context) ([]byte, bool) {
	// Asked for as every request is (its Want-*-Digest), so that the
	// digests hdig get would compare are there to compare (ownWrong).
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	r, err := a.do(ctx, request{label: "GET (dictionary)", method: http.MethodGet, header: h, keepAll: true})
	if err != nil {
		a.skipDictionary(fmt.Sprintf("fetching the dictionary failed: %v", err))
		return nil, false
	}
	defer r.close()
	switch {
	case r.status != http.StatusOK:
		a.skipDictionary(fmt.Sprintf("fetching the dictionary gave %d", r.status))
		return nil, false
	case r.capped:
		a.skipDictionary(fmt.Sprintf("the dictionary is over --max-body (%s): not read whole", bytesOf(a.opts.MaxBody)))
		return nil, false
	case r.err != nil:
		a.skipDictionary(fmt.Sprintf("reading the dictionary failed after %s: %v", bytesOf(r.size), r.err))
		return nil, false
	case r.encoding() != "":
		a.skipDictionary(fmt.Sprintf("the dictionary came with Content-Encoding %s for Accept-Encoding: identity", r.encoding()))
		return nil, false
	case r.size == 0:
		a.skipDictionary("the dictionary is empty")
		return nil, false
	}
	// hdig get verifies the response whose body it keeps as a dictionary
	// as any other: a digest of it that does not match its bytes fails.
	bad, notes := ownWrong(r, outsideFields)
	a.noteOutside("dictionary.decode", fmt.Sprintf("the response whose body is the dictionary (GET %s)", httpfield.Redact(a.url)), "its "+bytesOf(r.size), notes)
	if bad != "" {
		a.s.fail("dictionary.decode", fmt.Sprintf("the response whose body is the dictionary (GET %s) carries a digest that does not match its %s: %s; a client must not use it as a dictionary", httpfield.Redact(a.url), bytesOf(r.size), bad))
		a.skipDictionary("the dictionary's digests do not match it")
		return nil, false
	}
	b, err := io.ReadAll(r.body())
	if err != nil {
		a.skipDictionary(fmt.Sprintf("the dictionary could not be read back: %v", err))
		return nil, false
	}
	return b, true
}

// checkDictionaryVary decides dictionary.vary (RFC 9842 §6.2).
func (a *audit) checkDictionaryVary(r *response) {
	id, ce := "dictionary.vary", r.encoding()
	var missing []string
	for _, want := range []string{"accept-encoding", "available-dictionary"} {
		if !varies(r.header, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		a.s.fail(id, fmt.Sprintf("the %s response's Vary is %q, lacking %s; want Vary: accept-encoding, available-dictionary", ce, strings.Join(r.header.Values("Vary"), ", "), strings.Join(missing, " and ")))
		return
	}
	a.s.pass(id, fmt.Sprintf("the %s response varies on Accept-Encoding and Available-Dictionary", ce))
}

// checkDictionaryHash decides dictionary.hash: the 36- or 40-byte header
// names the dictionary sent. ok is false when the body cannot be decoded.
func (a *audit) checkDictionaryHash(ce string, body, dict []byte) bool {
	id := "dictionary.hash"
	got, _, err := dictionary.SplitHeader(ce, body)
	if err != nil {
		a.s.fail(id, fmt.Sprintf("%v (RFC 9842 §4, §5)", err))
		a.skipDictionary("the body has no valid " + ce + " header")
		return false
	}
	if want := dictionary.HashOf(dict); got != want {
		a.s.fail(id, fmt.Sprintf("the %s header names sha-256 %x, want %x (the dictionary sent in Available-Dictionary)", ce, got[:], want[:]))
		a.skipDictionary("the header names another dictionary")
		return false
	}
	a.s.pass(id, fmt.Sprintf("the %d-byte %s header names the dictionary sent", dictionary.HeaderLen(ce), ce))
	return true
}
