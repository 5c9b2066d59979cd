package check

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/server"
)

func statusOf(r Report, id string) Result {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return Result{}
}

func trustFor(t *testing.T, id string, pub ed25519.PublicKey, now time.Time) *fetch.Trust {
	t.Helper()
	keys, err := fetch.TrustedKeys(id, pub)
	if err != nil {
		t.Fatal(err)
	}
	return &fetch.Trust{Keys: keys, Skew: time.Minute, Now: func() time.Time { return now }}
}

// TestSignatureChecks: signature.* against a signing origin, with the
// right key, a wrong one, an untrusted keyid, a clock past expires, and
// against an origin that does not sign.
func TestSignatureChecks(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	other, _, _ := ed25519.GenerateKey(nil)
	signed := newOrigin(t, nil, server.WithSigningKey(priv, "", "origin", time.Hour))
	unsigned := newOrigin(t, nil)
	now := time.Now()
	all := []string{"signature.present", "signature.valid", "signature.key-trusted", "signature.repr-digest", "signature.created"}
	for _, c := range []struct {
		name  string
		url   string
		trust *fetch.Trust
		want  map[string]Status
	}{
		{"trusted", signed, trustFor(t, "origin", pub, now), map[string]Status{all[0]: Pass, all[1]: Pass, all[2]: Pass, all[3]: Pass, all[4]: Pass}},
		{"wrong key", signed, trustFor(t, "", other, now), map[string]Status{all[0]: Pass, all[1]: Fail, all[2]: Pass, all[3]: Skip}},
		{"keyid not trusted", signed, trustFor(t, "someone", other, now), map[string]Status{all[1]: Skip, all[2]: Fail, all[4]: Skip}},
		{"expired", signed, trustFor(t, "origin", pub, now.Add(2*time.Hour)), map[string]Status{all[1]: Fail, all[4]: Fail}},
		{"no --trust-key", signed, nil, map[string]Status{all[0]: Pass, all[1]: Skip, all[4]: Skip}},
		{"unsigned", unsigned, trustFor(t, "", pub, now), map[string]Status{all[0]: Fail, all[1]: Skip, all[3]: Skip}},
		{"unsigned, no --trust-key", unsigned, nil, map[string]Status{all[0]: Skip}},
	} {
		r := auditURL(t, c.url+"/hello.json", Options{Trust: c.trust})
		for id, st := range c.want {
			if got := statusOf(r, id); got.Status != st {
				t.Errorf("%s: %s = %s (%s), want %s", c.name, id, got.Status, got.Message, st)
			}
		}
	}
}

// TestSignatureOverTrailer: a valid signature by the trusted key that also
// covers a trailer field ("repr-digest";tr) verifies: the audit builds the
// signed message with the GET's trailer, as hdig get does, instead of
// failing signature.valid (the gate's exit 1) on a correct origin. With a
// --max-body smaller than the body the trailer never comes, so the
// signature cannot be verified: a skip, not an invalid signature.
func TestSignatureOverTrailer(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	body := []byte("signed, with a trailer, and longer than eight bytes\n")
	sum := sha256.Sum256(body)
	rd := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	h := http.Header{"Repr-Digest": {rd}, "Content-Type": {"text/plain"}, "Etag": {`"v1"`}}
	s, err := httpsig.NewSigner("", priv)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := httpsig.ParseComponents([]string{"@status", "repr-digest", `"repr-digest";tr`})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	p := httpsig.Params{Components: cs, Created: now.Add(-time.Minute), KeyID: "origin"}
	if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h, Trailer: http.Header{"Repr-Digest": {rd}}}, nil), "s", p, s); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range h {
			w.Header()[k] = v
		}
		if r.Method == http.MethodHead || r.Header.Get("Range") != "" || r.Header.Get("A-IM") != "" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Trailer", "Repr-Digest")
		w.Write(body)
		w.(http.Flusher).Flush()
		w.Header().Set("Repr-Digest", rd)
	}))
	t.Cleanup(srv.Close)
	r := auditURL(t, srv.URL+"/f.txt", Options{Trust: trustFor(t, "origin", pub, now)})
	for _, id := range []string{"signature.valid", "signature.key-trusted"} {
		if got := statusOf(r, id); got.Status != Pass {
			t.Errorf("%s = %s (%s), want pass", id, got.Status, got.Message)
		}
	}
	r = auditURL(t, srv.URL+"/f.txt", Options{Trust: trustFor(t, "origin", pub, now), MaxBody: 8})
	if got := statusOf(r, "signature.valid"); got.Status == Fail {
		t.Errorf("--max-body 8: signature.valid = %s (%s), want no failure: the trailer was not read", got.Status, got.Message)
	}
}

// trailerSignedOrigin serves body with a Repr-Digest in the header and in
// the trailer, signed by priv over both ("repr-digest";tr) with p (its
// components set here); edit, when not nil, changes the signature fields
// after signing.
func trailerSignedOrigin(t *testing.T, priv ed25519.PrivateKey, body []byte, p httpsig.Params, edit func(http.Header)) string {
	t.Helper()
	sum := sha256.Sum256(body)
	rd := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	h := http.Header{"Repr-Digest": {rd}, "Content-Type": {"text/plain"}, "Etag": {`"v1"`}}
	s, err := httpsig.NewSigner("", priv)
	if err != nil {
		t.Fatal(err)
	}
	if p.Components, err = httpsig.ParseComponents([]string{"@status", "repr-digest", `"repr-digest";tr`}); err != nil {
		t.Fatal(err)
	}
	if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h, Trailer: http.Header{"Repr-Digest": {rd}}}, nil), "s", p, s); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(h)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range h {
			w.Header()[k] = v
		}
		if r.Method == http.MethodHead || r.Header.Get("Range") != "" || r.Header.Get("A-IM") != "" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Trailer", "Repr-Digest")
		w.Write(body)
		w.(http.Flusher).Flush()
		w.Header().Set("Repr-Digest", rd)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestSignatureOverTrailerInvalidUnread: with the body not read to its end
// (--max-body), a signature over a trailer field is left unjudged only
// when its trailer is what it lacks: one that fails for a reason the
// trailer does not touch (expired, an alg the trusted keyid's key does not
// sign with, created in the future) fails signature.valid, as it did with
// the body read; it was skipped as "not read".
func TestSignatureOverTrailerInvalidUnread(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	body := []byte("signed, with a trailer, and longer than eight bytes\n")
	now := time.Now()
	for _, c := range []struct {
		name string
		p    httpsig.Params
		edit func(http.Header)
	}{
		{"expired", httpsig.Params{KeyID: "origin", Created: now.Add(-2 * time.Hour), Expires: now.Add(-time.Hour)}, nil},
		{"future", httpsig.Params{KeyID: "origin", Created: now.Add(time.Hour)}, nil},
		{"alg mismatch", httpsig.Params{KeyID: "origin", Created: now.Add(-time.Minute)}, func(h http.Header) {
			h.Set("Signature-Input", h.Get("Signature-Input")+`;alg="rsa-pss-sha512"`)
		}},
	} {
		url := trailerSignedOrigin(t, priv, body, c.p, c.edit)
		for _, max := range []int64{0, 8} {
			r := auditURL(t, url+"/f.txt", Options{Trust: trustFor(t, "origin", pub, now), MaxBody: max})
			if got := statusOf(r, "signature.valid"); got.Status != Fail {
				t.Errorf("%s, --max-body %d: signature.valid = %s (%s), want fail", c.name, max, got.Status, got.Message)
			}
		}
	}
	// Valid but for its trailer, which never came: not judged.
	url := trailerSignedOrigin(t, priv, body, httpsig.Params{KeyID: "origin", Created: now.Add(-time.Minute)}, nil)
	r := auditURL(t, url+"/f.txt", Options{Trust: trustFor(t, "origin", pub, now), MaxBody: 8})
	if got := statusOf(r, "signature.valid"); got.Status != Skip {
		t.Errorf("valid, --max-body 8: signature.valid = %s (%s), want skip", got.Status, got.Message)
	}
}

// TestSignatureOverReprDigestMember: a valid signature by the trusted key
// over one member of Repr-Digest ("repr-digest";key="sha-256", RFC 9421
// §2.1.2) covers the digest hdig get authenticates the bytes with, so
// signature.repr-digest passes; it failed a correct origin, counting only a
// signature over the whole field. A member of an algorithm hdig cannot
// compute proves nothing: that still fails.
func TestSignatureOverReprDigestMember(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	body := []byte("signed member by member\n")
	sum := sha256.Sum256(body)
	rd := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":, x-unknown=:AAAA:"
	for _, tc := range []struct {
		key  string
		want Status
	}{{"sha-256", Pass}, {"x-unknown", Fail}} {
		h := http.Header{"Repr-Digest": {rd}, "Content-Type": {"text/plain"}, "Etag": {`"v1"`}}
		s, err := httpsig.NewSigner("", priv)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := httpsig.ParseComponents([]string{"@status", `"repr-digest";key="` + tc.key + `"`})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		p := httpsig.Params{Components: cs, Created: now.Add(-time.Minute), KeyID: "origin"}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, nil), "s", p, s); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for k, v := range h {
				w.Header()[k] = v
			}
			w.Write(body)
		}))
		t.Cleanup(srv.Close)
		r := auditURL(t, srv.URL+"/f.txt", Options{Trust: trustFor(t, "origin", pub, now)})
		if got := statusOf(r, "signature.valid"); got.Status != Pass {
			t.Errorf("key %s: signature.valid = %s (%s), want pass", tc.key, got.Status, got.Message)
		}
		if got := statusOf(r, "signature.repr-digest"); got.Status != tc.want {
			t.Errorf("key %s: signature.repr-digest = %s (%s), want %s", tc.key, got.Status, got.Message, tc.want)
		}
	}
}
