package fetch

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/verify"
)

// Compression Dictionary Transport (RFC 9842), the client side. A response
// carrying Use-As-Dictionary is stored (its decoded bytes, with its match
// rules and freshness) in the cache's dictionary store (dictstore.go); a
// later GET whose URL a fresh stored dictionary of the same origin matches
// offers the best one in Available-Dictionary with Accept-Encoding dcb,
// dcz. A dcb or dcz answer is decoded as it streams (get.go), its header's
// hash checked against the dictionary offered; Repr-Digest and
// Content-Digest are checked over the encoded bytes received, and
// Unencoded-Digest and the user's digests over the decoded ones. A
// response that cannot be used is fetched again as a plain GET (the
// fallback of a 226), and a mismatch of the encoded bytes stays a mismatch.

// Field names of RFC 9842.
const (
	fieldUseAsDictionary     = "Use-As-Dictionary"
	fieldAvailableDictionary = "Available-Dictionary"
	fieldDictionaryID        = "Dictionary-ID"
)

// dictCodings is what a request offering a dictionary adds to
// Accept-Encoding.
const dictCodings = "dcb, dcz"

// dictOffer is the dictionary one request offers.
type dictOffer struct {
	entry cache.Dict
	bytes []byte
	hash  dictionary.Hash
}

// DictionaryUse describes the dictionary a dcb or dcz response was decoded
// with (Result.Dictionary).
type DictionaryUse struct {
	Coding string // dcb or dcz
	URL    string // where the dictionary came from
	SHA256 string // hex, as Available-Dictionary named it
	ID     string // the Dictionary-ID sent, if any
	Size   int64  // the dictionary's bytes
}

// secureContext says RFC 9842 may be used with u: "compression dictionary
// transport MUST only be used in secure contexts (HTTPS)" (§8). As in
// browsers (Secure Contexts §3.1), a loopback host counts as secure:
// localhost, *.localhost, 127.0.0.0/8 and ::1.
func secureContext(u *url.URL) bool {
	if u == nil {
		return false
	}
	if strings.EqualFold(u.Scheme, "https") {
		return true
	}
	if !strings.EqualFold(u.Scheme, "http") {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// matchingDicts lists the stored dictionaries that may be offered for
// rawURL at now, best first (RFC 9842 §2.2.2, §2.2.3): fresh, of raw type,
// from the URL's origin, whose pattern matches it; the longest match
// string first, then the most recently fetched. hdig has no request
// destinations, so match-dest matches all (§2.1.2).
func matchingDicts(store *cache.Cache, rawURL string, now time.Time) []cache.Dict {
	u, err := url.Parse(rawURL)
	if err != nil || !secureContext(u) {
		return nil
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	var out []cache.Dict
	for _, d := range store.Dicts() {
		if d.Type != dictionary.TypeRaw || !d.Fresh(now) {
			continue
		}
		if !dictCovers(d, u) {
			continue
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].Match) != len(out[j].Match) {
			return len(out[i].Match) > len(out[j].Match)
		}
		return out[i].Stored.After(out[j].Stored)
	})
	return out
}

// dictCovers says d may be offered for, and decode answers from, u
// (without userinfo and fragment): u is of d's origin and d's match
// pattern, of that origin, matches it.
func dictCovers(d cache.Dict, u *url.URL) bool {
	base, err := url.Parse(d.URL)
	if err != nil || originOf(u) != originOf(base) {
		return false
	}
	p, err := dictionary.CompilePattern(d.Match, base)
	return err == nil && p.SameOrigin() && p.Origin() == d.Origin && p.Match(u)
}

// HasDictionary says a GET of rawURL would offer a dictionary from store
// at now (the strategy chooser asks).
func HasDictionary(store *cache.Cache, rawURL string, now time.Time) bool {
	return len(matchingDicts(store, rawURL, now)) > 0
}

// bestDict reads the best matching dictionary for rawURL, checked
// against its sha-256; a damaged one is dropped by the store and the next
// best tried. nil: none to offer.
func bestDict(store *cache.Cache, rawURL string, now time.Time) *dictOffer {
	for _, d := range matchingDicts(store, rawURL, now) {
		b, err := store.ReadDict(d)
		if err != nil {
			continue
		}
		return &dictOffer{entry: d, bytes: b, hash: dictionary.HashOf(b)}
	}
	return nil
}

// offerDict adds the dictionary's fields to h: Available-Dictionary,
// Dictionary-ID when it had an id (§2.3), and dcb, dcz to Accept-Encoding
// (after --compressed's codings). It reports false, changing nothing,
// when the caller set Accept-Encoding or a dictionary field itself.
func offerDict(h http.Header, o *dictOffer, compressed bool) bool {
	if h.Get("Accept-Encoding") != "" || h.Get(fieldAvailableDictionary) != "" || h.Get(fieldDictionaryID) != "" {
		return false
	}
	id := ""
	if o.entry.ID != "" {
		v, err := dictionary.FormatDictionaryID(o.entry.ID)
		if err != nil {
			return false
		}
		id = v
	}
	h.Set(fieldAvailableDictionary, dictionary.FormatAvailableDictionary(o.hash))
	if id != "" {
		h.Set(fieldDictionaryID, id)
	}
	ae := dictCodings
	if compressed {
		ae = AcceptEncoding + ", " + dictCodings
	}
	h.Set("Accept-Encoding", ae)
	return true
}

// dictFor is the dictionary to decode a response of Content-Encoding enc
// from u (after redirects) with: the one offered, when enc names dcb or
// dcz and the dictionary covers u (dictCovers). A redirect to another
// origin, or outside the match pattern, was offered no dictionary
// (credentialGuard): its dcb or dcz answer is not decoded with this one,
// which would splice this origin's bytes into the other's answer and tell
// it which dictionary is held (RFC 9842 §10).
func (r *Request) dictFor(enc string, u *url.URL) *dictOffer {
	if r.dict == nil || u == nil || !dictCovers(r.dict.entry, u) {
		return nil
	}
	for _, c := range strings.Split(enc, ",") {
		switch strings.ToLower(strings.TrimSpace(c)) {
		case dictionary.CodingDCB, dictionary.CodingDCZ:
			return r.dict
		}
	}
	return nil
}

// size is the dictionary's length (0 for none): output the decoded body
// may copy, allowed once beside the ratio bound (Limits.checkGiven).
func (o *dictOffer) size() int64 {
	if o == nil {
		return 0
	}
	return int64(len(o.bytes))
}

// use describes the offer for the result.
func (o *dictOffer) use(coding string) *DictionaryUse {
	return &DictionaryUse{Coding: strings.ToLower(strings.TrimSpace(coding)), URL: o.entry.URL,
		SHA256: hex.EncodeToString(o.hash[:]), ID: o.entry.ID, Size: int64(len(o.bytes))}
}

// dictLimits bounds the decoder's output one byte past --max-filesize, so
// that the boundedWriter after it, which applies --max-filesize and
// --max-ratio, is the one to stop it (exit 4, not a decoding error).
func dictLimits(l Limits) dictionary.Limits {
	if l.MaxFileSize > 0 {
		return dictionary.Limits{MaxOutput: l.MaxFileSize + 1}
	}
	return dictionary.Limits{MaxOutput: 1 << 62}
}

// dictFailed marks a dcb or dcz response that could not be used: it is
// fetched again as a plain GET, as a 226 that does not apply.
func dictFailed(coding string, err error) error {
	return fmt.Errorf("%w: the %s response: %v", errDeltaFailed, strings.ToLower(strings.TrimSpace(coding)), err)
}

// dictFallback fetches the whole as a plain GET after a dcb or dcz
// response failed with why. A mismatch of a digest of the encoded bytes
// (Repr-Digest, Content-Digest, …) is corruption, not a dictionary
// problem: it stays in the verdict, so the run fails (exit 1) even if the
// plain GET verifies. A mismatch over the decoded bytes (Unencoded-Digest,
// the user's digests) is said as a warning and the plain GET decides, as
// for a 226 whose rebuilt instance fails.
func (c *Client) dictFallback(ctx context.Context, req *Request, sink Sink, res *Result, why error) (*Result, error) {
	bad := encodedMismatches(res, req)
	full, err := c.fallback(ctx, req, sink, res, why)
	if len(bad) == 0 || errors.Is(err, context.Canceled) {
		return full, err
	}
	switch {
	case full == nil:
		full = res // the plain GET got no response: the mismatch is still this one's
	case full != res:
		full.Verdict.Add(bad...)
	}
	// The mismatch is the verdict whatever became of the plain GET (exit 1,
	// not the protocol or network error of a refetch that failed too).
	if !errors.Is(err, ErrMismatch) {
		err = fmt.Errorf("%w: %s", ErrMismatch, bad[0])
	}
	return full, err
}

// encodedMismatches are the failed checks of res over the bytes received,
// each noted as being of the dictionary-coded response.
func encodedMismatches(res *Result, req *Request) []verify.Check {
	decodedSide := map[string]bool{verify.UnencodedDigest: true}
	for _, f := range req.Expected {
		decodedSide[f.Name] = true
	}
	var out []verify.Check
	for _, ch := range res.Verdict.Mismatches() {
		if decodedSide[ch.Field] {
			continue
		}
		ch.Reason = strings.TrimPrefix(ch.Reason+"; of the "+res.Encoding+" response, before the plain GET", "; ")
		out = append(out, ch)
	}
	return out
}

// bytesOrNil is the dictionary's bytes, nil for none.
func (o *dictOffer) bytesOrNil() []byte {
	if o == nil {
		return nil
	}
	return o.bytes
}

// plainAlgorithms are what the decoded bytes are hashed with: those of
// decodedAlgorithms, and sha-256 when the response offers itself as a
// dictionary (the store names it by that hash). A dcb or dcz body (dict
// set) is always hashed for Unencoded-Digest, its check over the decoded
// bytes: when the framing allows a trailer nobody declared, in the
// algorithms asked for and accepted, as withTrailer does for Repr-Digest,
// so that one in the trailer is never "not computed" beside a verified
// body.
func plainAlgorithms(req *Request, resp *http.Response, hdr fields, dict *dictOffer) []verify.Algorithm {
	algs := req.decodedAlgorithms(resp, hdr)
	var more []verify.Algorithm
	if dict != nil && (advertisesTrailers(resp.Request) || trailersPossible(resp)) {
		more = pick(req.mayTrail())
	}
	if resp.Header.Get(fieldUseAsDictionary) != "" {
		if a, ok := verify.Find("sha-256"); ok {
			more = append(more, a)
		}
	}
	for _, a := range more {
		if !hasAlg(algs, a.Key) {
			algs = append(algs, a)
		}
	}
	return algs
}

// sha256Of picks the sha-256 among sums (nil without one).
func sha256Of(sums []verify.Digest) []byte {
	for _, d := range sums {
		if d.Algorithm == "sha-256" {
			return d.Value
		}
	}
	return nil
}

// dictOfferKey marks a request's context with the dictionary it offers.
type dictOfferKey struct{}

// withDictOffer returns ctx recording that its requests offer o (nil:
// none), so that a redirect's request offers it only where it applies.
func withDictOffer(ctx context.Context, o *dictOffer) context.Context {
	if o == nil {
		return ctx
	}
	return context.WithValue(ctx, dictOfferKey{}, o)
}

// offerCovers says req may carry the dictionary fields it has: hdig's
// offer covers req's URL, or the fields are the caller's own (-H).
func offerCovers(req *http.Request) bool {
	o, ok := req.Context().Value(dictOfferKey{}).(*dictOffer)
	if !ok {
		return true
	}
	u := *req.URL
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	return dictCovers(o.entry, &u)
}
