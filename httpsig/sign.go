package httpsig

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
)

// NewNonce returns a random nonce (128 bits, base64url).
func NewNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Sign builds the signature base of p over m, signs it with s and adds the
// label's members to the target message's Signature-Input and Signature
// fields. p.Alg, when set, must be s's algorithm. It returns the signature.
func Sign(m Message, label string, p Params, s Signer) ([]byte, error) {
	if p.Alg != "" && p.Alg != s.Alg() {
		return nil, fmt.Errorf("httpsig: alg parameter %q, but the key signs %s", p.Alg, s.Alg())
	}
	if !p.Expires.IsZero() && !p.Created.IsZero() && p.Expires.Before(p.Created) {
		return nil, fmt.Errorf("httpsig: expires %d is before created %d", p.Expires.Unix(), p.Created.Unix())
	}
	if m.Request == nil && m.Response == nil {
		return nil, fmt.Errorf("httpsig: no message to sign")
	}
	p.list = nil
	base, err := Base(m, p)
	if err != nil {
		return nil, err
	}
	sig, err := s.Sign(base)
	if err != nil {
		return nil, err
	}
	if err := setSignature(m.target(), label, p, sig); err != nil {
		return nil, err
	}
	return sig, nil
}

// target is the header of the message being signed.
func (m Message) target() http.Header {
	if m.Response != nil {
		if m.Response.Header == nil {
			m.Response.Header = http.Header{}
		}
		return m.Response.Header
	}
	if m.Request.Header == nil {
		m.Request.Header = http.Header{}
	}
	return m.Request.Header
}
