package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// checkSignatures decides signature.present, .valid, .key-trusted,
// .covers-repr-digest and .created on the full GET's header (RFC 9421).
// Without trusted keys (--trust-key) only signature.present is decided.
func (a *audit) checkSignatures() {
	h := a.full.header
	sigs, err := httpsig.ParseSignatures(h)
	rest := []string{"signature.valid", "signature.key-trusted", "signature.repr-digest", "signature.created"}
	skipRest := func(msg string) {
		for _, id := range rest {
			a.s.skip(id, msg)
		}
	}
	tr := a.opts.Trust
	switch {
	case err != nil:
		a.s.fail("signature.present", fmt.Sprintf("GET 200 has malformed signature fields (%v); want Signature-Input and Signature Dictionaries with the same labels", strings.TrimPrefix(err.Error(), "httpsig: ")))
		skipRest("the signature fields are malformed")
		return
	case len(sigs) == 0 && tr == nil:
		a.s.skip("signature.present", "GET 200 carries no Signature-Input/Signature (give --trust-key to require one)")
		skipRest("no signature and no --trust-key")
		return
	case len(sigs) == 0:
		a.s.fail("signature.present", "GET 200 carries no Signature-Input/Signature; --trust-key wants a signature over Repr-Digest")
		skipRest("no signature")
		return
	}
	a.s.pass("signature.present", fmt.Sprintf("GET 200 carries %d signature(s): %s", len(sigs), describeSigs(sigs)))
	if tr == nil {
		skipRest("no --trust-key: signatures not verified")
		return
	}
	a.checkTrusted(tr, tr.Signatures(a.full.status, h, a.full.trailer, a.full.request), sigs)
}

func (a *audit) checkTrusted(tr *fetch.Trust, s fetch.Signed, sigs []httpsig.Signature) {
	var valid, invalid, unread []fetch.SignatureCheck
	// A signature over a trailer field cannot be verified when the GET's
	// body was not read to its end (over --max-body, broken off): its
	// trailer never came. That is not judged, rather than invalid; a
	// signature that fails for another reason (time, alg, key) fails.
	cut := a.full.capped || a.full.err != nil
	for _, c := range s.Checks {
		switch {
		case c.Result == fetch.SignatureValid:
			valid = append(valid, c)
		case c.Result == fetch.SignatureInvalid && cut && c.NoTrailer:
			unread = append(unread, c)
		case c.Result == fetch.SignatureInvalid:
			invalid = append(invalid, c)
		}
	}
	if n := len(valid) + len(invalid) + len(unread); n == 0 {
		a.s.fail("signature.key-trusted", fmt.Sprintf("no signature is by a trusted key (keyids %s); want one by a --trust-key key", keyids(sigs)))
	} else {
		a.s.pass("signature.key-trusted", fmt.Sprintf("%d signature(s) by a trusted key", n))
	}
	switch {
	case len(invalid) > 0:
		c := invalid[0]
		a.s.fail("signature.valid", fmt.Sprintf("%s (keyid %q) does not verify: %s", c.Label, c.KeyID, c.Reason))
	case len(unread) > 0:
		a.s.skip("signature.valid", fmt.Sprintf("%s cover a trailer field, and the GET's body was not read to its end (%s; --max-body %s): not verified", labels(unread), bytesOf(a.full.size), bytesOf(a.opts.MaxBody)))
	case len(valid) == 0:
		a.s.skip("signature.valid", "no signature by a trusted key to verify")
	default:
		a.s.pass("signature.valid", fmt.Sprintf("%s verify", labels(valid)))
	}
	switch id, what, ok := a.reprCovered(s); {
	case ok:
		a.s.pass("signature.repr-digest", fmt.Sprintf("a valid signature by %q covers %s in the header", id, what))
	case len(valid) == 0:
		a.s.skip("signature.repr-digest", "no valid signature by a trusted key")
	default:
		a.s.fail("signature.repr-digest", fmt.Sprintf("no valid signature by a trusted key covers repr-digest (%s cover %s); want \"repr-digest\" among the covered components", labels(valid), valid[0].Covers))
	}
	a.checkCreated(tr, sigs, valid, invalid)
}

// reprCovered says which valid trusted signature covers the GET's
// Repr-Digest in the header: the whole field, or, as hdig get counts it
// (fetch.Signed.Covers), a member (RFC 9421 §2.1.2 key) whose digest
// matched the GET's bytes; a member hdig could not compute, or one that
// did not match, proves nothing.
func (a *audit) reprCovered(s fetch.Signed) (id, what string, ok bool) {
	if id, ok := s.Covers(verify.ReprDigest, ""); ok {
		return id, "repr-digest", true
	}
	if a.full.capped || a.full.err != nil {
		return "", "", false
	}
	for _, alg := range compare(a.repr, a.full.sums).matched {
		if id, ok := s.Covers(verify.ReprDigest, alg); ok {
			return id, fmt.Sprintf("repr-digest member %s, which matches the GET's bytes,", alg), true
		}
	}
	return "", "", false
}

// checkCreated: the trusted signatures carry created, within the skew of
// now, and have not expired.
func (a *audit) checkCreated(tr *fetch.Trust, sigs []httpsig.Signature, valid, invalid []fetch.SignatureCheck) {
	now := time.Now()
	if tr.Now != nil {
		now = tr.Now()
	}
	trusted := map[string]bool{}
	for _, c := range append(valid, invalid...) {
		trusted[c.Label] = true
	}
	var bad, missing, ok []string
	for _, s := range sigs {
		p := s.Params
		switch {
		case !trusted[s.Label]:
		case p.Created.IsZero():
			missing = append(missing, s.Label)
		case p.Created.After(now.Add(tr.Skew)):
			bad = append(bad, fmt.Sprintf("%s created %s in the future", s.Label, p.Created.Sub(now).Round(time.Second)))
		case !p.Expires.IsZero() && !p.Expires.After(now.Add(-tr.Skew)):
			bad = append(bad, fmt.Sprintf("%s expired %s ago", s.Label, now.Sub(p.Expires).Round(time.Second)))
		default:
			ok = append(ok, fmt.Sprintf("%s created %s ago", s.Label, now.Sub(p.Created).Round(time.Second)))
		}
	}
	switch {
	case len(bad) > 0:
		a.s.fail("signature.created", strings.Join(bad, "; ")+fmt.Sprintf(" (skew allowed %s)", tr.Skew))
	case len(missing) > 0:
		a.s.warn("signature.created", fmt.Sprintf("%s carry no created parameter: a replayed old signature cannot be told from a new one", strings.Join(missing, ", ")))
	case len(ok) == 0:
		a.s.skip("signature.created", "no signature by a trusted key")
	default:
		a.s.pass("signature.created", strings.Join(ok, "; ")+fmt.Sprintf(", within the skew of %s", tr.Skew))
	}
}

func describeSigs(sigs []httpsig.Signature) string {
	var out []string
	for _, s := range sigs {
		d := s.Label
		if s.Params.KeyID != "" {
			d += fmt.Sprintf(" keyid %q", s.Params.KeyID)
		}
		if s.Params.Tag != "" {
			d += fmt.Sprintf(" tag %q", s.Params.Tag)
		}
		out = append(out, d)
	}
	return strings.Join(out, ", ")
}

func keyids(sigs []httpsig.Signature) string {
	var out []string
	for _, s := range sigs {
		out = append(out, fmt.Sprintf("%q", s.Params.KeyID))
	}
	return strings.Join(out, ", ")
}

func labels(cs []fetch.SignatureCheck) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Label)
	}
	return strings.Join(out, ", ")
}
