package server

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/httpsig"
)

// signingKey is a fixed Ed25519 key (RFC 8032 test 1's seed).
func signingKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	seed, err := base64.StdEncoding.DecodeString("nWGxne/9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A=")
	must(t, err)
	return ed25519.NewKeyFromSeed(seed)
}

func verifyPolicy(t testing.TB, k ed25519.PrivateKey) httpsig.Policy {
	v, err := httpsig.NewVerifier("", k.Public())
	must(t, err)
	return httpsig.Policy{Keys: []httpsig.Key{{ID: "origin", Verifier: v}}, Label: SignatureLabel,
		Require: []string{"@status", "repr-digest"}, RequireCreated: true}
}

var sriMember = regexp.MustCompile(`(?:^|, )sri=(\("unencoded-digest";sf\);created=\d+;expires=\d+;keyid="([^"]+)";tag="ed25519-integrity")(?:,|$)`)

// chromiumVerify checks the sri signature the way Chromium's
// sri_message_signatures.cc does, without httpsig: the base is the
// unencoded-digest line and the @signature-params line as received; the
// key is the keyid.
func chromiumVerify(t *testing.T, r *rawResponse) {
	t.Helper()
	m := sriMember.FindStringSubmatch(r.Header.Get("Signature-Input"))
	if m == nil {
		t.Fatalf("no sri member in the SRI profile's form: Signature-Input %q", r.Header.Get("Signature-Input"))
	}
	pub, err := base64.StdEncoding.DecodeString(m[2])
	if err != nil || len(pub) != ed25519.PublicKeySize {
		t.Fatalf("keyid %q is not a base64 Ed25519 key", m[2])
	}
	sm := regexp.MustCompile(`(?:^|, )sri=:([^:]+):`).FindStringSubmatch(r.Header.Get("Signature"))
	if sm == nil {
		t.Fatalf("no sri signature: %q", r.Header.Get("Signature"))
	}
	sig, _ := base64.StdEncoding.DecodeString(sm[1])
	base := `"unencoded-digest";sf: ` + r.Header.Get("Unencoded-Digest") + "\n" + `"@signature-params": ` + m[1]
	if !ed25519.Verify(pub, []byte(base), sig) {
		t.Errorf("sri signature does not verify over\n%s", base)
	}
}

// TestSignResponses: sig1 covers status, type and the digest fields in the
// header and verifies with httpsig; the SRI profile verifies as Chromium
// does, with Unencoded-Digest over the decoded bytes of a gzip variant.
func TestSignResponses(t *testing.T) {
	k := signingKey(t)
	_, ts := start(t, fixture(t), WithSigningKey(k, "", "origin", time.Hour))
	for _, c := range []struct {
		target  string
		headers []string
		status  int
		covers  string
		body    string
	}{
		{"/hello.json", nil, 200, `("@status" "@path";req "@query";req "content-type" "repr-digest" "unencoded-digest")`, hello},
		{"/hello.json", []string{"Want-Content-Digest: sha-256"}, 200, `("@status" "@path";req "@query";req "content-type" "repr-digest" "content-digest" "unencoded-digest")`, hello},
		{"/text.txt", []string{"Accept-Encoding: gzip"}, 200, `("@status" "@path";req "@query";req "content-type" "content-encoding" "repr-digest" "unencoded-digest")`, text},
		{"/hello.json", []string{"Range: bytes=0-3"}, 206, `("@status" "@path";req "@query";req "content-type" "repr-digest" "unencoded-digest")`, hello},
	} {
		r := raw(t, ts, "GET", c.target, c.headers...)
		wantStatus(t, r, c.status)
		wantHeader(t, r, "Unencoded-Digest", sfSHA256([]byte(c.body)))
		if in := r.Header.Get("Signature-Input"); !strings.HasPrefix(in, "sig1="+c.covers+";created=") || strings.Contains(in, "alg=") {
			t.Errorf("%s %v: Signature-Input %q, want sig1=%s…, no alg", c.target, c.headers, in, c.covers)
		}
		m := httpsig.ResponseMessage(r.Response, getOf(c.target))
		if _, err := httpsig.Verify(m, verifyPolicy(t, k)); err != nil {
			t.Errorf("%s %v: %v", c.target, c.headers, err)
		}
		chromiumVerify(t, r)
	}
	// The signature covers what was sent: a changed Repr-Digest fails.
	r := raw(t, ts, "GET", "/hello.json")
	r.Header.Set("Repr-Digest", emptySHA)
	if _, err := httpsig.Verify(httpsig.ResponseMessage(r.Response, getOf("/hello.json")), verifyPolicy(t, k)); err == nil {
		t.Error("verified with another Repr-Digest")
	}
	// It covers the path: one file's signed response is not another's.
	r = raw(t, ts, "GET", "/hello.json")
	if _, err := httpsig.Verify(httpsig.ResponseMessage(r.Response, getOf("/text.txt")), verifyPolicy(t, k)); err == nil {
		t.Error("/hello.json's signed response verified as the answer to /text.txt")
	}
}

// TestSignOnlyDigestResponses: a response without a digest field in its
// header is not signed; a 416 loses the representation's Unencoded-Digest
// and Repr-Digest (its problem body has its own, TestSignedErrorResponses);
// a digest sent as a trailer is not covered (no tr component).
func TestSignOnlyDigestResponses(t *testing.T) {
	k := signingKey(t)
	_, ts := start(t, fixture(t), WithSigningKey(k, "", "origin", time.Hour))
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=100-")
	wantStatus(t, r, http.StatusRequestedRangeNotSatisfiable)
	wantHeader(t, r, "Unencoded-Digest", "")
	wantHeader(t, r, "Repr-Digest", sfSHA256(r.body))
	r = raw(t, ts, "OPTIONS", "/hello.json")
	wantHeader(t, r, "Signature", "")

	_, tr := start(t, fixture(t), WithSigningKey(k, "", "origin", time.Hour), WithTrailerDigests())
	r = raw(t, tr, "GET", "/hello.json")
	wantStatus(t, r, 200)
	if in := r.Header.Get("Signature-Input"); !strings.HasPrefix(in, `sig1=("@status" "@path";req "@query";req "content-type" "unencoded-digest");`) {
		t.Errorf("with trailers: Signature-Input %q, want no repr-digest", in)
	}
	if r.Trailer.Get("Repr-Digest") != helloRepr {
		t.Errorf("trailer Repr-Digest %q", r.Trailer.Get("Repr-Digest"))
	}
}

// TestSignCache: one file's responses reuse their signatures (counted)
// until they are refresh old; another status or encoding signs anew.
func TestSignCache(t *testing.T) {
	s, ts := start(t, fixture(t), WithSigningKey(signingKey(t), "", "origin", time.Hour))
	now := time.Unix(1_800_000_000, 0)
	s.cfg.signer.now = func() time.Time { return now }
	first := raw(t, ts, "GET", "/hello.json").Header.Get("Signature")
	for range 5 {
		if got := raw(t, ts, "GET", "/hello.json").Header.Get("Signature"); got != first {
			t.Fatalf("Signature %q, want the cached %q", got, first)
		}
	}
	if n := s.Signatures(); n != 2 {
		t.Errorf("%d signatures for 6 GETs, want 2 (sig1 and sri once)", n)
	}
	raw(t, ts, "GET", "/hello.json", "Range: bytes=0-3")
	raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip")
	if n := s.Signatures(); n != 6 {
		t.Errorf("%d signatures after a 206 and a gzip variant, want 6", n)
	}
	now = now.Add(s.cfg.signer.refresh)
	r := raw(t, ts, "GET", "/hello.json")
	if n := s.Signatures(); n != 8 || r.Header.Get("Signature") == first {
		t.Errorf("after refresh: %d signatures, want 8, and a new Signature", n)
	}
	if !strings.Contains(r.Header.Get("Signature-Input"), ";created=1800000300;expires=1800003900;") {
		t.Errorf("Signature-Input %q, want created at the refresh", r.Header.Get("Signature-Input"))
	}
}

// TestSignOtherKeys: an ECDSA key signs sig1 only (the SRI profile is
// Ed25519's); bad options are refused.
func TestSignOtherKeys(t *testing.T) {
	k, err := httpsig.GenerateKey(httpsig.ECDSAP256SHA256)
	must(t, err)
	_, ts := start(t, fixture(t), WithSigningKey(k, "", "p256", 0))
	r := raw(t, ts, "GET", "/hello.json")
	in := r.Header.Get("Signature-Input")
	if !strings.HasPrefix(in, `sig1=("@status" "@path";req "@query";req "content-type" "repr-digest" "unencoded-digest");created=`) ||
		strings.Contains(in, "sri=") || strings.Contains(in, "expires=") {
		t.Errorf("Signature-Input %q, want sig1 only, without expires", in)
	}
	v, err := httpsig.NewVerifier("", k)
	must(t, err)
	pol := httpsig.Policy{Keys: []httpsig.Key{{ID: "p256", Verifier: v}}, Require: []string{"repr-digest"}}
	if _, err := httpsig.Verify(httpsig.ResponseMessage(r.Response, getOf("/hello.json")), pol); err != nil {
		t.Error(err)
	}
	if _, err := New(fixture(t), WithSigningKey(signingKey(t), "", "", time.Hour)); err == nil {
		t.Error("empty key id accepted")
	}
	if _, err := New(fixture(t), WithSigningKey(signingKey(t), httpsig.ECDSAP256SHA256, "k", time.Hour)); err == nil {
		t.Error("ecdsa alg for an Ed25519 key accepted")
	}
}

// BenchmarkSignatureFor: the signing cost of one response, reused from the
// cache and made anew (two Ed25519 signatures: sig1 and sri).
func BenchmarkSignatureFor(b *testing.B) {
	c := config{}
	must(b, WithSigningKey(signingKey(b), "", "origin", time.Hour)(&c))
	h := http.Header{"Content-Type": {"text/javascript"}, "Repr-Digest": {helloRepr}, "Unencoded-Digest": {helloRepr}}
	for _, name := range []string{"cached", "fresh"} {
		b.Run(name, func(b *testing.B) {
			if name == "fresh" {
				c.signer.refresh = 0
			}
			for b.Loop() {
				if _, ok, err := c.signer.signatureFor(200, h, &url.URL{Path: "/hello.json"}); !ok || err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// getOf is a GET of target, the request a response's "@path";req refers to.
func getOf(target string) *http.Request {
	return &http.Request{Method: http.MethodGet, URL: &url.URL{Path: target}, Header: http.Header{}}
}

// TestSignQuery: sig1 covers the query ("@query";req), so a signature
// made for one query is never served for another (the cache was keyed by
// the path alone: one request with ?poison made every later answer to the
// bare path fail its signature, a false integrity alarm). A query that
// "@query" cannot carry (raw bytes outside ASCII) is signed without it,
// not left unsigned with an error logged per request.
func TestSignQuery(t *testing.T) {
	k := signingKey(t)
	_, ts := start(t, fixture(t), WithSigningKey(k, "", "origin", time.Hour))
	for _, target := range []string{"/hello.json?poison=1", "/hello.json", "/hello.json?", "/hello.json?a=%41", "/hello.json?poison=1"} {
		r := raw(t, ts, "GET", target)
		u, _ := url.Parse(target)
		req := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
		if _, err := httpsig.Verify(httpsig.ResponseMessage(r.Response, req), verifyPolicy(t, k)); err != nil {
			t.Errorf("%s: %v (Signature-Input %q)", target, err, r.Header.Get("Signature-Input"))
		}
	}
	r := raw(t, ts, "GET", "/hello.json?x=\xc3\xa9")
	in := r.Header.Get("Signature-Input")
	if !strings.HasPrefix(in, `sig1=("@status" "@path";req "content-type"`) {
		t.Errorf("a non-ASCII query: Signature-Input %q, want sig1 without @query", in)
	}
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/hello.json", RawQuery: "x=\xc3\xa9"}, Header: http.Header{}}
	if _, err := httpsig.Verify(httpsig.ResponseMessage(r.Response, req), verifyPolicy(t, k)); err != nil {
		t.Errorf("a non-ASCII query: %v", err)
	}
}
