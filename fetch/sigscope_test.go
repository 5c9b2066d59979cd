package fetch

// What a signature is credited with (found by review): the key that
// verified, the header's fields only, the request the response answers.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// --trust-key alice=A.pub
// --trust-key B.pub (B without ID: any keyid). A signature made by B that
// claims keyid "alice" must not be reported as signed by "alice".
func TestSignedByIsTheKeyThatVerified(t *testing.T) {
	_, alice, _ := ed25519.GenerateKey(nil)
	_, bob, _ := ed25519.GenerateKey(nil)
	tr := trustOf(t, "alice", alice, sigT0)
	bk, err := TrustedKeys("", bob.Public())
	if err != nil {
		t.Fatal(err)
	}
	tr.Keys = append(tr.Keys, bk...)
	res := &Result{Status: 200, Header: signedHeader(t, bob, "alice", "repr-digest")}
	res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
	if err := tr.authenticate(res, true); err != nil {
		t.Fatal(err)
	}
	if res.SignedBy == "alice" {
		t.Errorf("signed by bob's key, reported SignedBy %q, Authentic %v", res.SignedBy, res.Authentic)
	}
}

// The header's Unencoded-Digest is
// signed but names only an algorithm hdig does not compute; the body's
// sha-256 comes in the trailer, which no signature covers. The trailer's
// match must not count as the signed header field's (as for Repr-Digest).
func TestUnencodedTrailerNotCreditedToSignature(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	body := []byte("not what the signer signed\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Unencoded-Digest", "sha3-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
		s, _ := httpsig.NewSigner("", k)
		cs, _ := httpsig.ParseComponents([]string{"@status", "unencoded-digest"})
		p := httpsig.Params{Components: cs, Created: sigT0, KeyID: "o"}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, nil), "s", p, s); err != nil {
			t.Error(err)
		}
		h.Set("Trailer", "Unencoded-Digest")
		w.WriteHeader(200)
		w.Write(body)
		w.(http.Flusher).Flush()
		h.Set("Unencoded-Digest", sha256Field(body))
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	var out bytes.Buffer
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Trust: trustOf(t, "o", k, sigT0)}
	res, err := c.Do(context.Background(), req, &HeldSink{Out: &out})
	if !errors.Is(err, ErrUnsigned) || out.Len() > 0 {
		t.Errorf("Do: %v, %d bytes released, authentic %v; want ErrUnsigned and none. checks: %v", err, out.Len(), res.Authentic, res.Verdict.Checks)
	}
}

// /latest redirects to /v2, whose response
// is signed as hdig serve signs (@status, "@path";req, repr-digest): the
// request it answers is GET /v2. The signature is valid; it is not a bad
// signature (exit 1) because hdig evaluated "@path";req on /latest.
func TestRedirectPathBindingUsesFinalURL(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	body := []byte("version 2\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/latest" {
			http.Redirect(w, r, "/v2", http.StatusFound)
			return
		}
		h := w.Header()
		h.Set("Repr-Digest", sha256Field(body))
		s, _ := httpsig.NewSigner("", k)
		cs, _ := httpsig.ParseComponents([]string{"@status", `"@path";req`, "repr-digest"})
		p := httpsig.Params{Components: cs, Created: sigT0, KeyID: "o"}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, r), "s", p, s); err != nil {
			t.Error(err)
		}
		w.Write(body)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall, FollowRedirects: true})
	var out bytes.Buffer
	req := &Request{URL: srv.URL + "/latest", Policy: verify.DefaultPolicy(), Trust: trustOf(t, "o", k, sigT0)}
	res, err := c.Do(context.Background(), req, &HeldSink{Out: &out})
	if err != nil {
		t.Fatalf("Do: %v; signatures %+v", err, res.Signatures)
	}
	if !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "redirected to (/v2)") {
		t.Errorf("no warning that the path bound is the redirect's: %v", res.Verdict.Warnings)
	}
}

// The verdict of a rebuilt 226
// instance (reprVerdict) must label a trailer's Repr-Digest as such, so
// that a signature over the header's Repr-Digest (here naming only an
// algorithm hdig does not compute) is not credited with its match.
func TestDeltaTrailerReprNotCreditedToSignature(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	body := []byte("rebuilt bytes\n")
	h := http.Header{"Repr-Digest": {"sha3-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"}}
	s, _ := httpsig.NewSigner("", k)
	cs, _ := httpsig.ParseComponents([]string{"@status", "repr-digest"})
	if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 226, Header: h}, nil), "s",
		httpsig.Params{Components: cs, Created: sigT0, KeyID: "o"}, s); err != nil {
		t.Fatal(err)
	}
	tr := http.Header{"Repr-Digest": {sha256Field(body)}}
	sha, _ := verify.Lookup("sha-256")
	sums, _, _ := verify.Sum(bytes.NewReader(body), []verify.Algorithm{sha})
	req := &Request{Policy: verify.DefaultPolicy()}
	res := &Result{Status: 226, Header: h, Verdict: reprVerdict(h, tr, sums, req)}
	if err := trustOf(t, "o", k, sigT0).authenticate(res, true); !errors.Is(err, ErrUnsigned) {
		t.Errorf("authenticate: %v, authentic %v; want ErrUnsigned. checks %v", err, res.Authentic, res.Verdict.Checks)
	}
}

// An Ed25519 public key given as hex (loaded as an HMAC secret, as the
// usual forms of one are: httpsig.LoadVerifyingKey) does not pass
// silently: the origin's genuine ed25519 signature is a bad signature by
// a trusted key, exit 1, so the mistake shows on the first download.
func TestHexPublicKeyAsSecretShows(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	secret, err := httpsig.LoadVerifyingKey([]byte(hex.EncodeToString(k.Public().(ed25519.PublicKey)) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := TrustedKeys("", secret)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trust{Keys: keys, Skew: time.Minute, Now: func() time.Time { return sigT0 }}
	res := &Result{Status: 200, Header: signedHeader(t, k, "origin", "repr-digest")}
	res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
	if err := tr.authenticate(res, true); !errors.Is(err, ErrSignature) {
		t.Errorf("authenticate: %v; want ErrSignature (an HMAC key cannot verify an ed25519 signature)", err)
	}
}

// The origin signs "@method";req and
// "want-repr-digest";req, as RFC 9421 §2.4 allows: the request a response
// answers is the one hdig sent (HEAD, with its own header fields), not a
// bare GET of the URL. A valid signature must not show as a bad one.
func TestReqComponentsAreTheRequestSent(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	body := []byte("signed for the request it answers\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Repr-Digest", sha256Field(body))
		s, _ := httpsig.NewSigner("", k)
		cs, _ := httpsig.ParseComponents([]string{"@status", `"@method";req`, `"@path";req`, `"want-repr-digest";req`, "repr-digest"})
		p := httpsig.Params{Components: cs, Created: sigT0, KeyID: "o"}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, r), "s", p, s); err != nil {
			t.Error(err)
		}
		if r.Method != http.MethodHead {
			w.Write(body)
		}
	}))
	defer srv.Close()
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		c, _ := NewClient(Options{Timeout: testStall})
		var out bytes.Buffer
		req := &Request{URL: srv.URL + "/f", Method: method, Policy: verify.DefaultPolicy(), Trust: trustOf(t, "o", k, sigT0),
			WantRepr: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}}
		res, err := c.Do(context.Background(), req, &HeldSink{Out: &out})
		if errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v; signatures %+v", method, err, res.Signatures)
			continue
		}
		for _, s := range res.Signatures {
			if s.Result != SignatureValid {
				t.Errorf("%s: signature %s: %v, want valid", method, s.Label, s.Reason)
			}
		}
	}
	// The pieces' path: the first response's request is the one sent.
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL + "/f", Policy: verify.DefaultPolicy(), Trust: trustOf(t, "o", k, sigT0),
		WantRepr: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}}
	path := t.TempDir() + "/out"
	if res, err := c.Download(context.Background(), req, path, DownloadOptions{Parallel: 2}); err != nil {
		t.Errorf("Download: %v; signatures %+v", err, res.Signatures)
	}
}

// A trusted key's signature that does
// not verify is a bad signature (exit 1), even beside another label that
// is malformed: that label is ignored, with a warning, and does not turn
// the bad signature into none (exit 3).
func TestBadSignatureBesideMalformedLabel(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	h := signedHeader(t, k, "o", "@status", "repr-digest")
	h.Set("Repr-Digest", "sha-256=:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=:") // not what was signed
	h.Add("Signature-Input", `x=("@status");keyid=1`)
	h.Add("Signature", `x=:AAAA:`)
	res := &Result{Status: 200, Header: h}
	res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
	err := trustOf(t, "o", k, sigT0).authenticate(res, true)
	if !errors.Is(err, ErrSignature) {
		t.Errorf("authenticate: %v, want ErrSignature; warnings %v", err, res.Verdict.Warnings)
	}
	if !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "signature x ignored") {
		t.Errorf("no warning naming the malformed label: %v", res.Verdict.Warnings)
	}
}

// Two valid signatures by one key: "a" covers
// Repr-Digest and not the path, "b" covers the path and no digest. What
// proves the bytes is "a", which any response of the origin's could carry:
// the warning that the URL is not bound must stay (found by review: bound
// was kept per keyid, so "b" silenced it for "a").
func TestPathBoundBySignatureThatProves(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/f", nil)
	h := http.Header{}
	h.Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
	s, _ := httpsig.NewSigner("", k)
	m := httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, req)
	for label, ids := range map[string][]string{"a": {"repr-digest"}, "b": {"@status", `"@path";req`}} {
		cs, _ := httpsig.ParseComponents(ids)
		if _, err := httpsig.Sign(m, label, httpsig.Params{Components: cs, Created: sigT0, KeyID: "origin"}, s); err != nil {
			t.Fatal(err)
		}
	}
	res := &Result{Status: 200, Header: h, URL: req.URL.String(), RequestURL: req.URL.String(), answers: req}
	res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
	if err := trustOf(t, "origin", k, sigT0).authenticate(res, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "does not cover the request's path") {
		t.Errorf("no warning that the signature proving the bytes does not bind the path; warnings %q", res.Verdict.Warnings)
	}
}

// A signature whose Signature-Input names a
// trusted key (keyid "o") and whose value cannot be read (not a Byte
// Sequence, bad base64, missing) is a signature by that key that does not
// verify: exit 1, as one with the wrong bytes is. It was a warning: alone
// it gave exit 3 ("carries no signature"), beside a valid one exit 0.
// A malformed label no trusted key applies to stays a warning.
func TestUnreadableTrustedSignatureIsBad(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	for _, v := range []string{`x=tok`, `x=:!!:`, `x=("a")`, ``} {
		for _, alone := range []bool{true, false} {
			h := http.Header{}
			h.Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
			if !alone {
				h = signedHeader(t, k, "o", "repr-digest")
			}
			h.Add("Signature-Input", `x=("repr-digest");keyid="o";created=1800000000`)
			if v != "" {
				h.Add("Signature", v)
			}
			res := &Result{Status: 200, Header: h}
			res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
			if err := trustOf(t, "o", k, sigT0).authenticate(res, true); !errors.Is(err, ErrSignature) {
				t.Errorf("Signature %q, alone %v: %v, want ErrSignature; warnings %q", v, alone, err, res.Verdict.Warnings)
			}
		}
	}
	h := signedHeader(t, k, "o", "repr-digest")
	h.Add("Signature-Input", `x=("repr-digest");keyid="cdn"`)
	h.Add("Signature", `x=tok`)
	res := &Result{Status: 200, Header: h}
	res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
	if err := trustOf(t, "o", k, sigT0).authenticate(res, true); err != nil {
		t.Errorf("another keyid's malformed label: %v, want authentic", err)
	}
}

// A signature that covers the request's path but not its query proves
// the bytes were signed for some URL with that path: for /f?v=2 it could
// be the answer signed for /f?v=1. With a query in the URL answered, hdig
// says the query is not bound, unless "@query", "@target-uri" or
// "@request-target" with req is covered. A redirect that changed only the
// query is a redirect to another signed URL, and said as one.
func TestQueryBoundBySignature(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(nil)
	for _, c := range []struct {
		name, asked, answered string
		ids                   []string
		want, not             string
	}{
		{"path only, query", "http://127.0.0.1/f?v=2", "http://127.0.0.1/f?v=2", []string{"repr-digest", `"@path";req`}, "does not cover the request's query", "redirected"},
		{"path only, no query", "http://127.0.0.1/f", "http://127.0.0.1/f", []string{"repr-digest", `"@path";req`}, "", "query"},
		{"path and query", "http://127.0.0.1/f?v=2", "http://127.0.0.1/f?v=2", []string{"repr-digest", `"@path";req`, `"@query";req`}, "", "query"},
		{"target-uri", "http://127.0.0.1/f?v=2", "http://127.0.0.1/f?v=2", []string{"repr-digest", `"@target-uri";req`}, "", "query"},
		{"query redirected", "http://127.0.0.1/f?v=2", "http://127.0.0.1/f?v=1", []string{"repr-digest", `"@path";req`, `"@query";req`}, "redirected to (/f?v=1), not the one asked for (/f?v=2)", "does not cover"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, c.answered, nil)
			h := http.Header{}
			h.Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
			s, _ := httpsig.NewSigner("", k)
			m := httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, req)
			cs, err := httpsig.ParseComponents(c.ids)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := httpsig.Sign(m, "sig1", httpsig.Params{Components: cs, Created: sigT0, KeyID: "origin"}, s); err != nil {
				t.Fatal(err)
			}
			res := &Result{Status: 200, Header: h, URL: c.answered, RequestURL: c.asked, answers: req}
			res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
			if err := trustOf(t, "origin", k, sigT0).authenticate(res, true); err != nil {
				t.Fatal(err)
			}
			w := strings.Join(res.Verdict.Warnings, "\n")
			if c.want != "" && !strings.Contains(w, c.want) {
				t.Errorf("no warning %q; warnings %q", c.want, w)
			}
			if strings.Contains(w, c.not) {
				t.Errorf("warning with %q; warnings %q", c.not, w)
			}
		})
	}
}
