package fetch

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

var sigT0 = time.Unix(1_800_000_000, 0)

// sigZero is the sha-256 value the signed test headers carry (all zeros).
var sigZero = make([]byte, 32)

// signedHeader is a 200's header with Repr-Digest and Content-Digest,
// signed by k under keyid over ids.
func signedHeader(t *testing.T, k ed25519.PrivateKey, keyid string, ids ...string) http.Header {
	t.Helper()
	return signedHeaderWith(t, k, keyid, http.Header{}, ids...)
}

// signedHeaderWith is signedHeader with the fields of h added.
func signedHeaderWith(t *testing.T, k ed25519.PrivateKey, keyid string, h http.Header, ids ...string) http.Header {
	t.Helper()
	h.Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
	h.Set("Content-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
	s, err := httpsig.NewSigner("", k)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := httpsig.ParseComponents(ids)
	if err != nil {
		t.Fatal(err)
	}
	p := httpsig.Params{Components: cs, Created: sigT0, Expires: sigT0.Add(time.Hour), KeyID: keyid}
	if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, nil), "s", p, s); err != nil {
		t.Fatal(err)
	}
	return h
}

func trustOf(t *testing.T, id string, k ed25519.PrivateKey, now time.Time) *Trust {
	t.Helper()
	keys, err := TrustedKeys(id, k.Public())
	if err != nil {
		t.Fatal(err)
	}
	return &Trust{Keys: keys, Skew: time.Minute, Now: func() time.Time { return now }}
}

// TestSignatures: which digest fields valid signatures by trusted keys
// cover ("repr-digest", or "repr-digest/sha-256" for one member).
func TestSignatures(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	_, other, _ := ed25519.GenerateKey(nil)
	for _, c := range []struct {
		name   string
		h      http.Header
		trust  *Trust
		result string
		covers map[string]string
	}{
		{"valid", signedHeader(t, k, "o", "@status", "repr-digest"), trustOf(t, "o", k, sigT0), SignatureValid, map[string]string{"repr-digest": "o"}},
		{"one member", signedHeader(t, k, "o", `"repr-digest";key="sha-256"`), trustOf(t, "", k, sigT0), SignatureValid, map[string]string{"repr-digest/sha-256": "o"}},
		{"other keyid", signedHeader(t, k, "x", "repr-digest"), trustOf(t, "o", k, sigT0), SignatureUntrusted, map[string]string{}},
		{"wrong key", signedHeader(t, other, "o", "repr-digest"), trustOf(t, "o", k, sigT0), SignatureInvalid, map[string]string{}},
		{"expired", signedHeader(t, k, "o", "repr-digest"), trustOf(t, "o", k, sigT0.Add(2*time.Hour)), SignatureInvalid, map[string]string{}},
	} {
		s := c.trust.Signatures(200, c.h, nil, nil)
		got := s.covered
		if len(s.Checks) != 1 || s.Checks[0].Result != c.result {
			t.Errorf("%s: checks %+v, want one %s", c.name, s.Checks, c.result)
		}
		if len(got) != len(c.covers) {
			t.Errorf("%s: covers %v, want %v", c.name, got, c.covers)
		}
		for f, id := range c.covers {
			if got[f] != id {
				t.Errorf("%s: covers %v, want %v", c.name, got, c.covers)
			}
		}
	}
}

// TestSignatureAlgMismatch: a signature whose keyid names a trusted key
// but whose alg does not fit that key fails verification (RFC 9421 §3.2
// step 6, §7.3.6): it is invalid, a mismatch (exit 1), not an untrusted
// signature passed over. Whether the signer used another key under the
// trusted key's id or only claims another algorithm, the trusted key did
// not make it.
func TestSignatureAlgMismatch(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(alg string, priv any) http.Header {
		h := http.Header{}
		h.Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
		s, err := httpsig.NewSigner(alg, priv)
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := httpsig.ParseComponents([]string{"repr-digest"})
		p := httpsig.Params{Components: cs, Created: sigT0, KeyID: "o", Alg: alg}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, nil), "s", p, s); err != nil {
			t.Fatal(err)
		}
		return h
	}
	claimed := signedHeader(t, k, "o", "repr-digest")
	claimed.Set("Signature-Input", claimed.Get("Signature-Input")+`;alg="ecdsa-p256-sha256"`)
	for name, h := range map[string]http.Header{
		"another key's algorithm under the trusted keyid": sign(httpsig.ECDSAP256SHA256, ek),
		"the trusted key's signature claiming another":    claimed,
		"an algorithm hdig does not know": func() http.Header {
			h := signedHeader(t, k, "o", "repr-digest")
			h.Set("Signature-Input", h.Get("Signature-Input")+`;alg="x-unknown"`)
			return h
		}(),
	} {
		tr := trustOf(t, "o", k, sigT0)
		s := tr.Signatures(200, h, nil, nil)
		if len(s.Checks) != 1 || s.Checks[0].Result != SignatureInvalid {
			t.Errorf("%s: checks %+v, want one invalid", name, s.Checks)
		}
		res := &Result{Status: 200, Header: h}
		res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
		if err := tr.authenticate(res, true); !errors.Is(err, ErrSignature) || !errors.Is(err, ErrMismatch) {
			t.Errorf("%s: %v, want ErrSignature and ErrMismatch (exit 1)", name, err)
		}
	}
	// A key trusted for any keyid is not named by one: a signature in
	// another algorithm may be anyone's, and is passed over.
	s := trustOf(t, "", k, sigT0).Signatures(200, sign(httpsig.ECDSAP256SHA256, ek), nil, nil)
	if len(s.Checks) != 1 || s.Checks[0].Result != SignatureUntrusted {
		t.Errorf("key for any keyid, another algorithm: checks %+v, want one untrusted", s.Checks)
	}
}

// TestAuthenticate: the matched digest must be covered; Content-Digest
// counts only for the whole content; a trailer's match does not count.
func TestAuthenticate(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	tr := trustOf(t, "", k, sigT0)
	match := func(field, reason string) verify.Check {
		return verify.Check{Field: field, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match, Reason: reason}
	}
	for _, c := range []struct {
		name  string
		ids   []string
		check verify.Check
		full  bool
		want  error
	}{
		{"repr-digest", []string{"repr-digest"}, match(verify.ReprDigest, ""), false, nil},
		{"content-digest of the whole", []string{"content-digest"}, match(verify.ContentDigest, ""), true, nil},
		{"content-digest of a part", []string{"content-digest"}, match(verify.ContentDigest, ""), false, ErrUnsigned},
		{"repr-digest in the trailer", []string{"repr-digest"}, match(verify.ReprDigest, "in trailer"), false, ErrUnsigned},
		{"not covered", []string{"@status"}, match(verify.ReprDigest, ""), false, ErrUnsigned},
		{"a value not the header's", []string{"content-digest"}, verify.Check{Field: verify.ContentDigest, Algorithm: "sha-256", Expected: []byte("recorded elsewhere"), Result: verify.Match}, true, ErrUnsigned},
	} {
		res := &Result{Status: 200, Header: signedHeader(t, k, "o", c.ids...)}
		res.Verdict.Add(c.check)
		err := tr.authenticate(res, c.full)
		if !errors.Is(err, c.want) || (err == nil) != (len(res.Authentic) > 0) {
			t.Errorf("%s: %v, authentic %v; want %v", c.name, err, res.Authentic, c.want)
		}
		if c.want == ErrUnsigned && !errors.Is(err, ErrUnverified) {
			t.Errorf("%s: %v is not ErrUnverified (exit 3)", c.name, err)
		}
	}
	_, other, _ := ed25519.GenerateKey(nil)
	res := &Result{Status: 200, Header: signedHeader(t, other, "o", "repr-digest")}
	res.Verdict.Add(match(verify.ReprDigest, ""))
	if err := tr.authenticate(res, true); !errors.Is(err, ErrSignature) || !errors.Is(err, ErrMismatch) {
		t.Errorf("wrong key: %v, want ErrSignature and ErrMismatch (exit 1)", err)
	}
}

// TestAuthenticateDecodedNeedsCoding: a Repr-Digest or Content-Digest of a
// gzip response is a digest of the encoded bytes; written decoded
// (--compressed), they prove the output only if the signature also covers
// Content-Encoding. Else whoever adds "Content-Encoding: gzip" to a signed
// foo.tar.gz served as identity gets foo.tar written as "authentic".
// Unencoded-Digest is of the decoded bytes and needs no such cover.
func TestAuthenticateDecodedNeedsCoding(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	tr := trustOf(t, "", k, sigT0)
	for _, c := range []struct {
		name    string
		ids     []string
		field   string
		decoded bool
		want    error
	}{
		{"decoded, coding not signed", []string{"repr-digest"}, verify.ReprDigest, true, ErrUnsigned},
		{"decoded, content-digest, coding not signed", []string{"content-digest"}, verify.ContentDigest, true, ErrUnsigned},
		{"decoded, coding signed", []string{"content-encoding", "repr-digest"}, verify.ReprDigest, true, nil},
		{"written as received", []string{"repr-digest"}, verify.ReprDigest, false, nil},
		{"decoded, unencoded-digest", []string{"unencoded-digest"}, verify.UnencodedDigest, true, nil},
	} {
		h := http.Header{"Content-Encoding": {"gzip"}, "Unencoded-Digest": {"sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"}}
		res := &Result{Status: 200, Header: signedHeaderWith(t, k, "o", h, c.ids...), Decoded: c.decoded}
		res.Verdict.Add(verify.Check{Field: c.field, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
		err := tr.authenticate(res, true)
		if !errors.Is(err, c.want) || (err == nil) != (len(res.Authentic) > 0) {
			t.Errorf("%s: %v, authentic %v; want %v", c.name, err, res.Authentic, c.want)
		}
	}
}

// TestAuthenticateTrailerComponent: a valid signature by a trusted key
// that also covers a trailer field ("content-digest";tr) is verified with
// the response's trailer, not reported invalid (exit 1) because the
// trailer was not looked at.
func TestAuthenticateTrailerComponent(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	tr := trustOf(t, "", k, sigT0)
	h := http.Header{"Repr-Digest": {"sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"}}
	trailer := http.Header{"Content-Digest": {"sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"}}
	s, err := httpsig.NewSigner("", k)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := httpsig.ParseComponents([]string{"@status", "repr-digest", `"content-digest";tr`})
	if err != nil {
		t.Fatal(err)
	}
	p := httpsig.Params{Components: cs, Created: sigT0, KeyID: "o"}
	if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h, Trailer: trailer}, nil), "s", p, s); err != nil {
		t.Fatal(err)
	}
	res := &Result{Status: 200, Header: h, Trailer: trailer}
	res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
	if err := tr.authenticate(res, true); err != nil || len(res.Authentic) == 0 {
		t.Errorf("signature over a trailer field: %v, authentic %v; want authentic", err, res.Authentic)
	}
	// A trailer field that is not there is still a bad signature.
	res = &Result{Status: 200, Header: h}
	res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
	if err := tr.authenticate(res, true); !errors.Is(err, ErrSignature) {
		t.Errorf("covered trailer field missing: %v, want ErrSignature", err)
	}
}
