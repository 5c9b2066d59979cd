package fetch

import (
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// DefaultSignatureSkew is the clock skew allowed for created and expires.
const DefaultSignatureSkew = 5 * time.Minute

// Errors of authentication (--trust-key). A bad signature counts as a
// mismatch (exit 1), a missing one as unverified (exit 3).
var (
	// ErrSignature: a signature a trusted key applies to does not verify,
	// has expired or is not yet valid. errors.Is(err, ErrMismatch) holds.
	ErrSignature = errors.New("signature by a trusted key is not valid")
	// ErrUnsigned: no valid signature by a trusted key covers a digest
	// that verified the bytes. errors.Is(err, ErrUnverified) holds.
	ErrUnsigned = errors.New("not signed by a trusted key")
)

type sigError struct {
	kind, base error
	msg        string
}

func (e *sigError) Error() string   { return e.kind.Error() + ": " + e.msg }
func (e *sigError) Unwrap() []error { return []error{e.kind, e.base} }

// Trust is what --trust-key demands: a valid RFC 9421 signature by one of
// Keys over the digest field that verified the bytes.
type Trust struct {
	Keys []httpsig.Key
	// Skew is the clock skew allowed: created up to Skew in the future,
	// expires up to Skew in the past.
	Skew time.Duration
	// MaxAge refuses signatures created longer ago (0: no limit).
	MaxAge time.Duration
	Now    func() time.Time // time.Now if nil
}

// TrustedKeys are the verification keys of one public key: under id (""
// matches any keyid). An RSA key gives one per RSA algorithm; an Ed25519
// key with an id is also known by its base64 form, the keyid of the
// signature-based SRI profile.
func TrustedKeys(id string, pub any) ([]httpsig.Key, error) {
	algs := []string{""}
	if _, ok := pub.(*rsa.PublicKey); ok {
		algs = []string{httpsig.RSAPSSSHA512, httpsig.RSAV15SHA256}
	}
	var out []httpsig.Key
	for _, a := range algs {
		v, err := httpsig.NewVerifier(a, pub)
		if err != nil {
			return nil, err
		}
		out = append(out, httpsig.Key{ID: id, Verifier: v})
		if k, ok := pub.(ed25519.PublicKey); ok && id != "" {
			out = append(out, httpsig.Key{ID: base64.StdEncoding.EncodeToString(k), Verifier: v})
		}
	}
	return out, nil
}

// Signature results.
const (
	SignatureValid     = "valid"
	SignatureInvalid   = "invalid"
	SignatureUntrusted = "untrusted" // no trusted key applies: not checked
)

// SignatureCheck is the outcome for one signature of a response.
type SignatureCheck struct {
	Label  string
	KeyID  string
	Alg    string
	Tag    string
	Covers []string // the covered components, as in Signature-Input
	Result string
	Reason string // why it is invalid or untrusted
	// NoTrailer: invalid only as a trailer field it covers is not in the
	// response (httpsig.ErrNoTrailer), every other check met.
	NoTrailer bool
}

// Signed is what the signatures of one response prove.
type Signed struct {
	Checks []SignatureCheck
	// covered maps a digest field ("repr-digest"), or one member of it
	// ("repr-digest/sha-256", the key parameter), to the keyid (else the
	// label) of a valid signature by a trusted key that covers it in the
	// header.
	covered map[string]string
	// coded is covered for the signatures that also cover Content-Encoding
	// in the header: a digest of encoded bytes (Repr-Digest, Content-Digest)
	// proves the decoded bytes written only with the coding signed.
	coded map[string]string
	// bound is covered for the signatures that also cover the request's
	// path: whether the signature proving a digest binds the URL is the
	// question, not whether its key signed the path elsewhere.
	bound map[string]string
	// queried is covered for the signatures that also cover the request's
	// query.
	queried  map[string]string
	Warnings []string
}

// Covers returns the keyid of a valid trusted signature that covers the
// header field (e.g. "Repr-Digest") or its member alg.
func (s Signed) Covers(field, alg string) (string, bool) {
	return lookupCover(s.covered, field, alg)
}

// coversDecoded is Covers for bytes written decoded: a digest of the
// encoded bytes counts only from a signature that covers their coding.
func (s Signed) coversDecoded(field, alg string) (string, bool) {
	if strings.EqualFold(field, verify.UnencodedDigest) {
		return s.Covers(field, alg)
	}
	return lookupCover(s.coded, field, alg)
}

func lookupCover(m map[string]string, field, alg string) (string, bool) {
	f := strings.ToLower(field)
	if id, ok := m[f]; ok {
		return id, true
	}
	id, ok := m[f+"/"+alg]
	return id, ok
}

// Invalid returns the checks of signatures a trusted key applies to that
// did not verify.
func (s Signed) Invalid() []SignatureCheck {
	var out []SignatureCheck
	for _, c := range s.Checks {
		if c.Result == SignatureInvalid {
			out = append(out, c)
		}
	}
	return out
}

// Signatures verifies every signature of a response with the given status,
// header and trailer (nil if none or not yet received: components with
// `tr` need it; req, if not nil, is the request for `req` components) and
// says which digest fields valid signatures by trusted keys cover. A
// malformed Signature-Input or Signature is ignored with a warning, and so
// is a malformed label (the others are still verified).
func (t *Trust) Signatures(status int, h, trailer http.Header, req *http.Request) Signed {
	out := Signed{covered: map[string]string{}, coded: map[string]string{}, bound: map[string]string{}, queried: map[string]string{}}
	sigs, bad, err := httpsig.ParseEach(h)
	if err != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("signature fields ignored: %v", err))
		return out
	}
	for _, b := range bad {
		// A value that cannot be read, under parameters a trusted key
		// applies to, is that key's signature failing, not no signature.
		if b.Params != nil && t.policy(b.Label).Applies(*b.Params) {
			c := checkOf(b.Label, *b.Params)
			c.Result, c.Reason = SignatureInvalid, reasonOf(b, b.Label)
			out.Checks = append(out.Checks, c)
			continue
		}
		out.Warnings = append(out.Warnings, fmt.Sprintf("signature %s ignored: %v", b.Label, b))
	}
	m := httpsig.ResponseMessage(&http.Response{StatusCode: status, Header: h, Trailer: trailer}, req)
	for _, s := range sigs {
		pol := t.policy(s.Label)
		c := checkOf(s.Label, s.Params)
		if !pol.Applies(s.Params) {
			c.Result, c.Reason = SignatureUntrusted, "no trusted key for this keyid and alg"
			out.Checks = append(out.Checks, c)
			continue
		}
		r, err := httpsig.Verify(m, pol)
		if err != nil {
			c.Result, c.Reason = SignatureInvalid, reasonOf(err, s.Label)
			c.NoTrailer = errors.Is(err, httpsig.ErrNoTrailer)
			out.Checks = append(out.Checks, c)
			continue
		}
		c.Result, c.Alg = SignatureValid, r.Alg
		out.Checks = append(out.Checks, c)
		name := r.KeyName
		if name == "" && !t.namesKey(s.Params.KeyID) {
			name = s.Params.KeyID
		}
		out.cover(r.Params, s.Label, name)
	}
	return out
}

// checkOf is the check of the signature label with parameters p, its
// result not yet known.
func checkOf(label string, p httpsig.Params) SignatureCheck {
	c := SignatureCheck{Label: label, KeyID: p.KeyID, Alg: p.Alg, Tag: p.Tag}
	for _, comp := range p.Components {
		c.Covers = append(c.Covers, comp.String())
	}
	return c
}

// reasonOf is Verify's error without the prefixes the check repeats.
func reasonOf(err error, label string) string {
	r := strings.TrimPrefix(err.Error(), "httpsig: ")
	r = strings.TrimPrefix(r, "signature "+label+": ")
	return strings.TrimPrefix(r, "httpsig: ")
}

// namesKey says id is the ID of one of the trusted keys.
func (t *Trust) namesKey(id string) bool {
	for _, k := range t.Keys {
		if k.ID != "" && k.ID == id {
			return true
		}
	}
	return false
}

func (t *Trust) policy(label string) httpsig.Policy {
	return httpsig.Policy{Keys: t.Keys, Label: label, Skew: t.Skew, MaxAge: t.MaxAge, Now: t.Now}
}

// cover records the digest fields p covers in the header of the response.
func (s *Signed) cover(p httpsig.Params, label, keyName string) {
	id := p.KeyID
	if id == "" {
		id = label
	}
	if keyName != p.KeyID {
		// A key trusted for any keyid verified a keyid that names another
		// trusted key (--trust-key ID=KEY): the keyid is a false claim.
		id = "a key trusted for any keyid, claiming keyid " + id
	}
	binds, queries := bindsTarget(p)
	coding := false
	for _, c := range p.Components {
		coding = coding || (c.Name == "content-encoding" && !hasParam(c, "req") && !hasParam(c, "tr"))
	}
	mark := func(k string) {
		s.covered[k] = id
		if coding {
			s.coded[k] = id
		}
		if binds {
			s.bound[k] = id
		}
		if queries {
			s.queried[k] = id
		}
	}
	for _, c := range p.Components {
		if c.Derived() || hasParam(c, "req") || hasParam(c, "tr") {
			continue
		}
		switch c.Name {
		case "repr-digest", "content-digest", "unencoded-digest":
		default:
			continue
		}
		if k, ok := paramOf(c, "key"); ok {
			if alg, ok := k.(string); ok {
				mark(c.Name + "/" + alg)
			}
			continue
		}
		mark(c.Name)
	}
}

// authenticate applies --trust-key to a verified result: some digest that
// matched (Repr-Digest or Unencoded-Digest; Content-Digest when the content
// is the whole representation, full) must be covered in the header by a
// valid signature of a trusted key (with Content-Encoding, when the body
// was written decoded and the digest is of the encoded bytes), and no
// signature a trusted key applies to may be invalid.
func (t *Trust) authenticate(res *Result, full bool) error {
	s := t.Signatures(res.Status, res.Header, res.Trailer, requestOf(res))
	res.Signatures = s.Checks
	res.Verdict.Warn(s.Warnings...)
	if bad := s.Invalid(); len(bad) > 0 {
		return &sigError{kind: ErrSignature, base: ErrMismatch, msg: describeSig(bad[0])}
	}
	var proved []string
	bound, queried := false, false
	covers := s.Covers
	if res.Decoded {
		covers = s.coversDecoded
	}
	for _, c := range res.Verdict.Checks {
		if c.Result != verify.Match || strings.HasPrefix(c.Reason, "in trailer") || !signable(c.Field, full) || !inHeader(res.Header, c) {
			continue
		}
		if id, ok := covers(c.Field, c.Algorithm); ok {
			proved = appendUnique(proved, fmt.Sprintf("%s %s by %q", c.Field, c.Algorithm, id))
			_, binds := lookupCover(s.bound, c.Field, c.Algorithm)
			_, queries := lookupCover(s.queried, c.Field, c.Algorithm)
			bound, queried = bound || binds, queried || binds && queries
			if res.SignedBy == "" {
				res.SignedBy = id
			}
		}
	}
	if len(proved) > 0 {
		if bound && res.URL != "" && res.RequestURL != "" && targetOf(res.URL, queried) != targetOf(res.RequestURL, queried) {
			res.Verdict.Warn(fmt.Sprintf("the signature by %q covers the path redirected to (%s), not the one asked for (%s): whoever redirected chose which signed file this is", res.SignedBy, targetOf(res.URL, queried), targetOf(res.RequestURL, queried)))
		}
		if !bound {
			res.Verdict.Warn(fmt.Sprintf("the signature by %q does not cover the request's path (@path, @target-uri or @request-target with req): it proves these bytes are the signer's, not that they are what this URL names; another file signed with this key could be served here", res.SignedBy))
		} else if !queried && hasQuery(res.URL) {
			res.Verdict.Warn(fmt.Sprintf("the signature by %q covers the request's path but does not cover the request's query (@query, @target-uri or @request-target with req): an answer signed for this path with another query could be served here", res.SignedBy))
		}
		res.Authentic = proved
		return nil
	}
	return &sigError{kind: ErrUnsigned, base: ErrUnverified, msg: unsignedWhy(res, s)}
}
