package httpsig

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

var t0 = time.Unix(1700000000, 0)

// signedResponse is a response carrying a digest, signed by s under
// "sig1" covering @status, content-type and repr-digest.
func signedResponse(t *testing.T, s Signer, p Params) Message {
	t.Helper()
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	h.Set("Repr-Digest", "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:")
	m := ResponseMessage(&http.Response{StatusCode: 200, Header: h}, newRequest(t, "GET", "http://127.0.0.1/f", nil))
	if p.Components == nil {
		cs, err := ParseComponents([]string{"@status", "content-type", "repr-digest", `"@path";req`})
		if err != nil {
			t.Fatal(err)
		}
		p.Components = cs
	}
	if _, err := Sign(m, "sig1", p, s); err != nil {
		t.Fatal(err)
	}
	return m
}

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// TestRoundTrip signs with every algorithm and verifies with the public
// key; the RFC's keys plus a P-384 key made here.
func TestRoundTrip(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	type pair struct {
		s Signer
		v Verifier
	}
	pairs := map[string]pair{}
	for id, alg := range testKeyAlgs {
		pairs[alg] = pair{testSigner(t, id), testVerifier(t, id)}
	}
	rsaKey, err := ParsePrivateKey(readFile(t, "keys/test-key-rsa.pem"))
	if err != nil {
		t.Fatal(err)
	}
	sPSS, _ := NewSigner(RSAPSSSHA512, rsaKey)
	vPSS, _ := NewVerifier(RSAPSSSHA512, rsaKey)
	pairs["rsa key with pss"] = pair{sPSS, vPSS}
	s384, _ := NewSigner("", p384)
	v384, _ := NewVerifier(ECDSAP384SHA384, &p384.PublicKey)
	pairs[ECDSAP384SHA384] = pair{s384, v384}
	if len(pairs) != 7 {
		t.Fatalf("%d algorithms, want 7", len(pairs))
	}
	for name, kp := range pairs {
		t.Run(name, func(t *testing.T) {
			m := signedResponse(t, kp.s, Params{Created: t0, KeyID: "k", Alg: kp.s.Alg(), Nonce: "n1", Tag: "hdig"})
			r, err := Verify(m, Policy{Keys: []Key{{ID: "k", Verifier: kp.v}}, Tag: "hdig", Require: []string{"repr-digest|content-digest"}, Now: fixedClock(t0)})
			if err != nil {
				t.Fatal(err)
			}
			if r.Alg != kp.s.Alg() || r.Params.Nonce != "n1" || r.Params.Tag != "hdig" || r.KeyID != "k" {
				t.Fatalf("result %+v", r)
			}
			if n := len(m.Response.Header.Get("Signature")); n == 0 {
				t.Fatal("no Signature field")
			}
		})
	}
}

// TestVerifyFailures: tampered component, wrong key, expired, not yet
// valid, too old, missing required component, unknown key, alg mismatch,
// truncated signature, no signature at all.
func TestVerifyFailures(t *testing.T) {
	ed := testSigner(t, "test-key-ed25519")
	good := []Key{{ID: "k", Verifier: testVerifier(t, "test-key-ed25519")}}
	_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	otherV, _ := NewVerifier(Ed25519, otherPriv.Public())
	base := Policy{Keys: good, Now: fixedClock(t0)}
	for _, tc := range []struct {
		name   string
		p      Params
		mutate func(m Message)
		pol    func(p Policy) Policy
		want   error
		msg    string
	}{
		{name: "tampered digest", mutate: func(m Message) {
			m.Response.Header.Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
		}, want: ErrBadSignature},
		{name: "tampered status", mutate: func(m Message) { m.Response.StatusCode = 203 }, want: ErrBadSignature},
		{name: "tampered request path", mutate: func(m Message) { m.Request.URL.Path = "/g" }, want: ErrBadSignature},
		{name: "tampered signature params", p: Params{Created: t0}, mutate: func(m Message) {
			m.Response.Header.Set("Signature-Input", strings.Replace(m.Response.Header.Get("Signature-Input"), "1700000000", "1699999999", 1))
		}, want: ErrBadSignature},
		{name: "wrong key", pol: func(p Policy) Policy { p.Keys = []Key{{ID: "k", Verifier: otherV}}; return p }, want: ErrBadSignature},
		{name: "unknown keyid", pol: func(p Policy) Policy { p.Keys[0].ID = "other"; return p }, want: ErrNoKey, msg: "no trusted key"},
		{name: "expired", p: Params{Expires: t0.Add(-time.Minute)}, want: ErrPolicy, msg: "expired"},
		{name: "expired within skew", p: Params{Expires: t0.Add(-time.Minute)}, pol: func(p Policy) Policy { p.Skew = 2 * time.Minute; return p }},
		{name: "created in the future", p: Params{Created: t0.Add(time.Hour)}, want: ErrPolicy, msg: "future"},
		{name: "created in the future within skew", p: Params{Created: t0.Add(time.Minute)}, pol: func(p Policy) Policy { p.Skew = time.Minute; return p }},
		{name: "too old", p: Params{Created: t0.Add(-2 * time.Hour)}, pol: func(p Policy) Policy { p.MaxAge = time.Hour; return p }, want: ErrPolicy, msg: "older"},
		{name: "created required", pol: func(p Policy) Policy { p.RequireCreated = true; return p }, want: ErrPolicy, msg: "no created"},
		{name: "content-digest required", pol: func(p Policy) Policy { p.Require = []string{"content-digest"}; return p }, want: ErrPolicy, msg: "content-digest is not covered"},
		{name: "either digest required", pol: func(p Policy) Policy { p.Require = []string{"content-digest|repr-digest"}; return p }},
		{name: "req component required", pol: func(p Policy) Policy { p.Require = []string{`"@path";req`}; return p }},
		{name: "alg not allowed", pol: func(p Policy) Policy { p.Algs = []string{ECDSAP256SHA256}; return p }, want: ErrPolicy},
		{name: "alg parameter mismatch", mutate: func(m Message) {
			m.Response.Header.Set("Signature-Input", m.Response.Header.Get("Signature-Input")+`;alg="hmac-sha256"`)
		}, want: ErrAlgMismatch, msg: "does not fit"},
		{name: "truncated signature", mutate: func(m Message) { m.Response.Header.Set("Signature", "sig1=:AAAA:") }, want: ErrBadSignature},
		{name: "other label", pol: func(p Policy) Policy { p.Label = "sig2"; return p }, want: ErrNoSignature},
		{name: "other tag", pol: func(p Policy) Policy { p.Tag = "x"; return p }, want: ErrNoSignature},
		{name: "no signature", mutate: func(m Message) { m.Response.Header.Del("Signature"); m.Response.Header.Del("Signature-Input") }, want: ErrNoSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.KeyID = "k"
			m := signedResponse(t, ed, tc.p)
			if tc.mutate != nil {
				tc.mutate(m)
			}
			pol := base
			pol.Keys = append([]Key(nil), good...)
			if tc.pol != nil {
				pol = tc.pol(pol)
			}
			_, err := Verify(m, pol)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Verify = %v, want %v containing %q", err, tc.want, tc.msg)
			}
		})
	}
}

// TestMalformedFields: labels missing from one field, wrong member types.
func TestMalformedFields(t *testing.T) {
	for _, tc := range []struct{ in, sig string }{
		{`a=("@method")`, ``},
		{``, `a=:AAAA:`},
		{`a=("@method")`, `b=:AAAA:`},
		{`a="x"`, `a=:AAAA:`},
		{`a=("@method")`, `a="x"`},
		{`a=(1)`, `a=:AAAA:`},
		{`a=("@Method")`, `a=:AAAA:`},
		{`a=("@method");created="x"`, `a=:AAAA:`},
		{`a=("@method");created=-1`, `a=:AAAA:`},
		{`a=("@method");keyid=1`, `a=:AAAA:`},
		{`a=(`, `a=:AAAA:`},
	} {
		h := http.Header{}
		if tc.in != "" {
			h.Set("Signature-Input", tc.in)
		}
		if tc.sig != "" {
			h.Set("Signature", tc.sig)
		}
		if s, err := ParseSignatures(h); err == nil {
			t.Errorf("%q / %q: %+v, want an error", tc.in, tc.sig, s)
		}
	}
}

// TestBounds: too many labels, components, or bytes are refused.
func TestBounds(t *testing.T) {
	var in, sig []string
	for i := 0; i <= MaxSignatures; i++ {
		l := "s" + strings.Repeat("x", i)
		in = append(in, l+`=("@method")`)
		sig = append(sig, l+"=:AAAA:")
	}
	h := http.Header{"Signature-Input": {strings.Join(in, ", ")}, "Signature": {strings.Join(sig, ", ")}}
	if _, err := ParseSignatures(h); err == nil || !strings.Contains(err.Error(), "labels") {
		t.Errorf("%d labels: %v", len(in), err)
	}
	cs := strings.Repeat(`"a" `, MaxComponents+1)
	h = http.Header{"Signature-Input": {"a=(" + cs + ")"}, "Signature": {"a=:AAAA:"}}
	if _, err := ParseSignatures(h); err == nil || !strings.Contains(err.Error(), "components") {
		t.Errorf("%d components: %v", MaxComponents+1, err)
	}
	h = http.Header{"Signature-Input": {`a=("@method");nonce="` + strings.Repeat("n", MaxFieldLength) + `"`}, "Signature": {"a=:AAAA:"}}
	if _, err := ParseSignatures(h); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("long field: %v", err)
	}
	big := http.Header{"X-Big": {strings.Repeat("b", MaxBaseLength)}}
	c, _ := ParseComponent("x-big")
	if _, err := Base(RequestMessage(newRequest(t, "GET", "http://x/", big)), Params{Components: []Component{c}}); err == nil {
		t.Error("base over MaxBaseLength built")
	}
}

// TestSignKeepsOtherSignatures: a second label is added beside the first;
// the same label twice is refused.
func TestSignKeepsOtherSignatures(t *testing.T) {
	ed := testSigner(t, "test-key-ed25519")
	hm := testSigner(t, "test-shared-secret")
	m := signedResponse(t, ed, Params{KeyID: "e"})
	cs, _ := ParseComponents([]string{"@status"})
	if _, err := Sign(m, "sig2", Params{Components: cs, KeyID: "h"}, hm); err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(m, "sig2", Params{Components: cs}, hm); err == nil {
		t.Fatal("label sig2 signed twice")
	}
	for _, k := range []Key{{ID: "e", Verifier: testVerifier(t, "test-key-ed25519")}, {ID: "h", Verifier: testVerifier(t, "test-shared-secret")}} {
		if _, err := Verify(m, Policy{Keys: []Key{k}}); err != nil {
			t.Errorf("key %s: %v", k.ID, err)
		}
	}
	if _, err := Sign(m, "sig3", Params{Components: cs, Alg: RSAPSSSHA512}, hm); err == nil {
		t.Fatal("alg parameter other than the key's accepted")
	}
}

// TestKeyChecks: keys that do not fit the algorithm are refused.
func TestKeyChecks(t *testing.T) {
	ecc, _ := ParsePrivateKey(readFile(t, "keys/test-key-ecc-p256.pem"))
	rsaKey, _ := ParsePrivateKey(readFile(t, "keys/test-key-rsa.pem"))
	p224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	for _, tc := range []struct {
		alg string
		key any
	}{
		{ECDSAP384SHA384, ecc},
		{Ed25519, ecc},
		{"", rsaKey},
		{HMACSHA256, rsaKey},
		{HMACSHA256, []byte("short")},
		{"", p224},
		{"", "a string"},
	} {
		if _, err := NewSigner(tc.alg, tc.key); err == nil {
			t.Errorf("NewSigner(%q, %T) accepted", tc.alg, tc.key)
		}
	}
	pub, _ := ParsePublicKey(readFile(t, "keys/test-key-ed25519.pub.pem"))
	if _, err := NewSigner("", pub); err == nil {
		t.Error("signing with a public key accepted")
	}
}

// TestLabelRepeatedAcrossLines: a label in two Signature-Input lines is an
// error, not the last one winning.
func TestLabelRepeatedAcrossLines(t *testing.T) {
	h := http.Header{"Signature-Input": {`a=("@method")`, `a=("@path")`}, "Signature": {"a=:AAAA:"}}
	if _, err := ParseSignatures(h); err == nil || !strings.Contains(err.Error(), "more than one") {
		t.Fatalf("ParseSignatures = %v, want label in more than one field", err)
	}
	if _, err := Verify(Message{}, Policy{}); err == nil {
		t.Fatal("Verify of no message succeeded")
	}
}

// TestPolicyApplies: whether a policy has a key for a signature's keyid
// and alg, before any verification.
func TestPolicyApplies(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	v, err := NewVerifier("", priv)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  Key
		p    Params
		algs []string
		want bool
	}{
		{Key{ID: "k", Verifier: v}, Params{KeyID: "k"}, nil, true},
		{Key{Verifier: v}, Params{KeyID: "anyone"}, nil, true},
		{Key{ID: "k", Verifier: v}, Params{KeyID: "j"}, nil, false},
		{Key{ID: "k", Verifier: v}, Params{KeyID: "k", Alg: ECDSAP256SHA256}, nil, true}, // named: fails, ErrAlgMismatch
		{Key{Verifier: v}, Params{KeyID: "k", Alg: ECDSAP256SHA256}, nil, false},
		{Key{ID: "k", Verifier: v}, Params{KeyID: "k"}, []string{HMACSHA256}, false},
	} {
		pol := Policy{Keys: []Key{c.key}, Algs: c.algs}
		if got := pol.Applies(c.p); got != c.want {
			t.Errorf("key %q, params %+v, algs %v: Applies = %v, want %v", c.key.ID, c.p, c.algs, got, c.want)
		}
	}
}

// TestMalformedLabelStandsAlone: a label malformed in one field (a
// parameter of the wrong type, no value) does not hide a well-formed
// signature beside it from a verifier (ParseEach, Verify); the strict
// reader, for audits, still refuses the fields.
func TestMalformedLabelStandsAlone(t *testing.T) {
	s := testSigner(t, "test-key-ed25519")
	m := signedResponse(t, s, Params{Created: time.Unix(1618884473, 0), KeyID: "test-key-ed25519"})
	for _, extra := range [][2]string{
		{`x=("@method");keyid=1`, `x=:AAAA:`},
		{`x=("@method")`, ``},
		{``, `x=:AAAA:`},
	} {
		h := m.Response.Header.Clone()
		if extra[0] != "" {
			h.Add("Signature-Input", extra[0])
		}
		if extra[1] != "" {
			h.Add("Signature", extra[1])
		}
		mm := ResponseMessage(&http.Response{StatusCode: m.Response.StatusCode, Header: h}, m.Request)
		sigs, bad, err := ParseEach(h)
		if err != nil || len(sigs) != 1 || len(bad) != 1 || bad[0].Label != "x" {
			t.Errorf("%q: ParseEach: %d signatures, bad %v, %v; want 1, x", extra, len(sigs), bad, err)
		}
		pol := Policy{Keys: testKeys(t), Now: fixedClock(time.Unix(1618884473, 0))}
		if _, err := Verify(mm, pol); err != nil {
			t.Errorf("%q: Verify: %v, want the well-formed signature verified", extra, err)
		}
		pol.Label = "x"
		if _, err := Verify(mm, pol); err == nil {
			t.Errorf("%q: Verify of label x: no error", extra)
		}
		if _, err := ParseSignatures(h); err == nil {
			t.Errorf("%q: ParseSignatures: no error", extra)
		}
	}
}

// TestBaseBoundsFieldBytesRead: the base bound is on the field bytes a
// base reads, not only on the bytes it writes. A `key` component takes one
// small member out of a field it parses whole, so 64 of them over a 10 MB
// header field (net/http's default header limit) parsed it 64 times per
// signature, 16 signatures a response: hundreds of seconds of parsing for
// one hostile response, under a base of a few hundred bytes.
func TestBaseBoundsFieldBytesRead(t *testing.T) {
	pad := "k=1, " + strings.Repeat("p=1, ", MaxBaseLength/5) + "q=1"
	h := http.Header{"X-Pad": {pad}}
	c, err := ParseComponent(`"x-pad";key="k"`)
	if err != nil {
		t.Fatal(err)
	}
	m := RequestMessage(newRequest(t, "GET", "http://x/", h))
	if b, err := Base(m, Params{Components: []Component{c}}); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("a member of a %d-byte field: base %d bytes, err %v; want it refused as over %d bytes read", len(pad), len(b), err, MaxBaseLength)
	}
	// Components each under the bound, together over it: the field is
	// read once for each.
	h = http.Header{"X-Pad": {"k=1, " + strings.Repeat("p=1, ", MaxBaseLength/18) + "q=1"}}
	m = RequestMessage(newRequest(t, "GET", "http://x/", h))
	cs, err := ParseComponents([]string{`"x-pad";key="k"`, `"x-pad";key="p"`, `"x-pad";key="q"`, `"x-pad";key="p";req`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Base(m, Params{Components: cs[:3]}); err != nil {
		t.Errorf("three members of a %d-byte field: %v; want a base", len(h.Get("X-Pad")), err)
	}
	resp := ResponseMessage(&http.Response{StatusCode: 200, Header: h}, m.Request)
	if b, err := Base(resp, Params{Components: cs}); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("four reads of a %d-byte field: base %d bytes, err %v; want it refused", len(h.Get("X-Pad")), len(b), err)
	}
}

// TestTrailerNotCome: a covered trailer field the response announced
// (net/http puts it in the Trailer map with no lines) but that never came
// is absent, ErrNoTrailer, not a field with an empty value whose base
// fails as a bad signature; one in the header is no trailer's.
func TestTrailerNotCome(t *testing.T) {
	ed := testSigner(t, "test-key-ed25519")
	keys := []Key{{ID: "k", Verifier: testVerifier(t, "test-key-ed25519")}}
	cs, err := ParseComponents([]string{"@status", `"repr-digest";tr`, "etag"})
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Etag": {`"v1"`}}
	rd := http.Header{"Repr-Digest": {"sha-256=:AAAA:"}}
	if _, err := Sign(ResponseMessage(&http.Response{StatusCode: 200, Header: h, Trailer: rd}, nil), "s", Params{Components: cs, KeyID: "k"}, ed); err != nil {
		t.Fatal(err)
	}
	pol := Policy{Keys: keys}
	if _, err := Verify(ResponseMessage(&http.Response{StatusCode: 200, Header: h, Trailer: rd}, nil), pol); err != nil {
		t.Fatalf("with its trailer: %v", err)
	}
	for _, tr := range []http.Header{nil, {"Repr-Digest": nil}} {
		_, err := Verify(ResponseMessage(&http.Response{StatusCode: 200, Header: h, Trailer: tr}, nil), pol)
		if !errors.Is(err, ErrNoTrailer) || errors.Is(err, ErrBadSignature) {
			t.Errorf("trailer %v: %v, want ErrNoTrailer", tr, err)
		}
	}
	noEtag := h.Clone()
	noEtag["Etag"] = nil
	if _, err := Verify(ResponseMessage(&http.Response{StatusCode: 200, Header: noEtag, Trailer: rd}, nil), pol); err == nil || errors.Is(err, ErrNoTrailer) {
		t.Errorf("no ETag in the header: %v, want an error that is not ErrNoTrailer", err)
	}
}

// TestTrailerNotComeOtherFieldMissing: a signature over a trailer field
// that never came and over a header field the response does not have
// fails for the header field, whatever the trailer would have said: it
// is not ErrNoTrailer (a check would skip it as not read), in either
// order of the components.
func TestTrailerNotComeOtherFieldMissing(t *testing.T) {
	ed := testSigner(t, "test-key-ed25519")
	pol := Policy{Keys: []Key{{ID: "k", Verifier: testVerifier(t, "test-key-ed25519")}}}
	for _, order := range [][]string{{`"repr-digest";tr`, "etag"}, {"etag", `"repr-digest";tr`}} {
		cs, err := ParseComponents(order)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{"Etag": {`"v1"`}}
		rd := http.Header{"Repr-Digest": {"sha-256=:AAAA:"}}
		if _, err := Sign(ResponseMessage(&http.Response{StatusCode: 200, Header: h, Trailer: rd}, nil), "s", Params{Components: cs, KeyID: "k"}, ed); err != nil {
			t.Fatal(err)
		}
		noEtag := h.Clone()
		noEtag.Del("Etag")
		_, err = Verify(ResponseMessage(&http.Response{StatusCode: 200, Header: noEtag, Trailer: http.Header{"Repr-Digest": nil}}, nil), pol)
		if err == nil || errors.Is(err, ErrNoTrailer) {
			t.Errorf("%v, no ETag and no trailer: %v; want an error that is not ErrNoTrailer", order, err)
		}
	}
}

// The bytes Base counts for a field are those of the lines it reads: when
// the field's canonical name has no lines (a trailer announced, not come)
// and another spelling of it has, the lines read are those and are
// counted, not passed as none.
func TestBaseCountsTheLinesItReads(t *testing.T) {
	pad := "k=1, " + strings.Repeat("p=1, ", MaxBaseLength/5) + "q=1"
	h := http.Header{"X-Pad": {}, "x-pad": {pad}}
	c, err := ParseComponent(`"x-pad";key="k"`)
	if err != nil {
		t.Fatal(err)
	}
	m := RequestMessage(newRequest(t, "GET", "http://x/", h))
	if b, err := Base(m, Params{Components: []Component{c}}); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("a member of a %d-byte field: base %d bytes, err %v; want it refused as over %d bytes read", len(pad), len(b), err, MaxBaseLength)
	}
}
