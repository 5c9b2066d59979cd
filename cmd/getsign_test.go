package cmd

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// signKeys makes two Ed25519 keys with hdig keygen: dir/origin.pem(.pub)
// and dir/other.pem(.pub).
func signKeys(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range []string{"origin", "other"} {
		if code, _, errOut := runHdig(t, "keygen", "-o", filepath.Join(dir, n+".pem")); code != 0 {
			t.Fatalf("keygen: exit %d: %s", code, errOut)
		}
	}
	return dir
}

// rawPublic is the base64 raw Ed25519 public key of a PEM key file.
func rawPublic(t *testing.T, pubFile string) string {
	t.Helper()
	b, err := os.ReadFile(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	k, err := httpsig.ParsePublicKey(b)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(k.(ed25519.PublicKey))
}

// TestGetTrustKeyRoundTrip: hdig serve --sign-key, hdig get --trust-key
// in each key form: authentic; a 226 delta too (its Repr-Digest is the
// result's); a key that did not sign is a bad signature (1); a keyid not
// trusted, or an unsigned origin, is unsigned (3), and FILE is not written.
func TestGetTrustKeyRoundTrip(t *testing.T) {
	keys, site, state, cacheDir := signKeys(t), t.TempDir(), t.TempDir(), t.TempDir()
	file := filepath.Join(site, "app.js")
	os.WriteFile(file, versionText(1), 0o644)
	signed := startServe(t, site, "--sign-key", filepath.Join(keys, "origin.pem"), "--history", "2", "--state-dir", state)
	unsigned := startServe(t, site, "--history", "0")
	pub, otherPub := filepath.Join(keys, "origin.pem.pub"), filepath.Join(keys, "other.pem.pub")
	out := filepath.Join(t.TempDir(), "app.js")

	for _, key := range []string{pub, "origin=" + pub, rawPublic(t, pub), "origin=" + rawPublic(t, pub)} {
		code, v, errOut := getJSON(t, "--no-cache", "--trust-key", key, "-o", out, signed+"app.js")
		if code != 0 || v.Verdict != "authentic" || len(v.Signatures) != 2 || !strings.Contains(errOut, "✔ authentic") || !strings.Contains(errOut, `Repr-Digest sha-256 by "origin"`) || strings.Contains(errOut, "does not cover the request's path") {
			t.Errorf("--trust-key %s: exit %d, %+v: %s", key, code, v, errOut)
		}
	}
	assertFile(t, out, string(versionText(1)))
	// -C on a complete file: its HEAD's signature proves it, or the file
	// is fetched again and the bad signature fails; FILE is kept.
	for _, c := range []struct {
		key, verdict string
		exit         int
	}{{pub, "authentic", 0}, {otherPub, "mismatch", 1}} {
		code, v, errOut := getJSON(t, "--no-cache", "-C", "--trust-key", c.key, "-o", out, signed+"app.js")
		if code != c.exit || v.Verdict != c.verdict || (c.exit == 0 && v.Transfer.Strategy != "not-modified") {
			t.Errorf("-C with %s: exit %d, %+v: %s", filepath.Base(c.key), code, v, errOut)
		}
		assertFile(t, out, string(versionText(1)))
	}

	// 304 for the cached copy -o names: authentic, checked in place; with
	// a key that did not sign, exit 1 and the cached copy is kept.
	if code, _, errOut := runHdig(t, "get", "--cache-dir", cacheDir, "-o", out, signed+"app.js"); code != 0 {
		t.Fatalf("fill the cache: exit %d: %s", code, errOut)
	}
	for _, c := range []struct {
		key, verdict string
		exit         int
	}{{pub, "authentic", 0}, {otherPub, "mismatch", 1}, {pub, "authentic", 0}} {
		code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "--trust-key", c.key, "-o", out, signed+"app.js")
		if code != c.exit || v.Verdict != c.verdict || (c.exit == 0 && v.Transfer.Strategy != "not-modified") {
			t.Errorf("304 with %s: exit %d, %+v: %s", filepath.Base(c.key), code, v, errOut)
		}
	}
	// 226: the cache holds version 1; the delta's result is authentic.
	os.WriteFile(file, versionText(2), 0o644)
	code, v, errOut := getJSON(t, "--cache-dir", cacheDir, "--trust-key", pub, "-o", out, signed+"app.js")
	if code != 0 || v.Status != 226 || v.Verdict != "authentic" {
		t.Fatalf("226: exit %d, %+v: %s", code, v, errOut)
	}
	assertFile(t, out, string(versionText(2)))

	fails := []struct {
		name, url, key string
		exit           int
		verdict, line  string
	}{
		{"wrong key", signed, otherPub, 1, "mismatch", "✖ bad signature: sig1"},
		{"keyid not trusted", signed, "someone=" + otherPub, 3, "unverified", "none of its 2 signatures is by a trusted key"},
		{"unsigned origin", unsigned, pub, 3, "unverified", "the response carries no signature"},
	}
	for _, f := range fails {
		o := filepath.Join(t.TempDir(), "app.js")
		code, v, errOut := getJSON(t, "--no-cache", "--trust-key", f.key, "-o", o, f.url+"app.js")
		if code != f.exit || v.Verdict != f.verdict || !strings.Contains(errOut, f.line) {
			t.Errorf("%s: exit %d, verdict %s, want %d %s: %s", f.name, code, v.Verdict, f.exit, f.verdict, errOut)
		}
		assertNoFile(t, o)
	}
}

// TestGetTrustKeyTampered: a proxy between get and the signing origin.
// Repr-Digest changed over the true body is a digest mismatch; body and
// every digest field replaced consistently keep the digests matching, and
// then the origin's signature fails (exit 1 both).
func TestGetTrustKeyTampered(t *testing.T) {
	keys, site := signKeys(t), t.TempDir()
	os.WriteFile(filepath.Join(site, "app.js"), versionText(1), 0o644)
	origin, err := url.Parse(startServe(t, site, "--sign-key", filepath.Join(keys, "origin.pem")))
	if err != nil {
		t.Fatal(err)
	}
	evil := []byte("alert('not the origin');\n")
	evilSums, _, _ := verify.Sum(strings.NewReader(string(evil)), []verify.Algorithm{mustAlg(t, "sha-256")})
	for _, c := range []struct {
		name, line string
		body       bool
	}{
		{"repr-digest only", "✖ mismatch", false},
		{"body and digests", "✖ bad signature: sig1", true},
	} {
		proxy := httputil.NewSingleHostReverseProxy(origin)
		proxy.ModifyResponse = func(resp *http.Response) error {
			resp.Header.Set("Repr-Digest", verify.FormatDigests(evilSums))
			if c.body {
				resp.Header.Set("Unencoded-Digest", verify.FormatDigests(evilSums))
				resp.Header.Del("Content-Digest")
				resp.Body = nopCloser{strings.NewReader(string(evil))}
				resp.ContentLength = int64(len(evil))
				resp.Header.Set("Content-Length", strconv.Itoa(len(evil)))
			}
			return nil
		}
		srv := httptest.NewServer(proxy)
		o := filepath.Join(t.TempDir(), "app.js")
		code, v, errOut := getJSON(t, "--no-cache", "--no-delta", "--trust-key", filepath.Join(keys, "origin.pem.pub"), "-o", o, srv.URL+"/app.js")
		srv.Close()
		if code != 1 || v.Verdict != "mismatch" || !strings.Contains(errOut, c.line) {
			t.Errorf("%s: exit %d, verdict %s: %s", c.name, code, v.Verdict, errOut)
		}
		assertNoFile(t, o)
	}
}

// originSigner is the signer of the "origin" key signKeys made in keys.
func originSigner(t *testing.T, keys string) httpsig.Signer {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(keys, "origin.pem"))
	priv, err := httpsig.LoadSigningKey(b)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := httpsig.NewSigner("", priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

// TestGetTrustKeyExpired: an origin whose signature expired an hour ago
// (beyond the skew) is a bad signature; one created in an hour is too;
// --signature-max-age refuses an old created.
func TestGetTrustKeyExpired(t *testing.T) {
	keys := signKeys(t)
	signer := originSigner(t, keys)
	body := "signed body\n"
	sums, _, _ := verify.Sum(strings.NewReader(body), []verify.Algorithm{mustAlg(t, "sha-256")})
	var created, expires time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/plain")
		h.Set("Repr-Digest", verify.FormatDigests(sums))
		cs, _ := httpsig.ParseComponents([]string{"@status", "content-type", "repr-digest"})
		p := httpsig.Params{Components: cs, Created: created, Expires: expires, KeyID: "origin"}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, nil), "sig1", p, signer); err != nil {
			t.Error(err)
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	now := time.Now().Truncate(time.Second)
	pub := filepath.Join(keys, "origin.pem.pub")
	for _, c := range []struct {
		name             string
		created, expires time.Time
		extra            []string
		exit             int
		line             string
	}{
		{"fresh", now, now.Add(time.Hour), nil, 0, "✔ authentic"},
		{"expired", now.Add(-2 * time.Hour), now.Add(-time.Hour), nil, 1, "expired at"},
		{"created in the future", now.Add(time.Hour), time.Time{}, nil, 1, "is in the future"},
		{"older than max age", now.Add(-48 * time.Hour), time.Time{}, []string{"--signature-max-age", "24h"}, 1, "is older than 24h0m0s"},
	} {
		created, expires = c.created, c.expires
		o := filepath.Join(t.TempDir(), "f")
		args := append([]string{"get", "--no-cache", "--trust-key", pub, "-o", o}, c.extra...)
		code, _, errOut := runHdig(t, append(args, srv.URL+"/f")...)
		if code != c.exit || !strings.Contains(errOut, c.line) {
			t.Errorf("%s: exit %d, want %d with %q: %s", c.name, code, c.exit, c.line, errOut)
		}
	}
}

// TestTrustKeyFlag: the forms of --trust-key and their errors (exit 2).
func TestTrustKeyFlag(t *testing.T) {
	keys := signKeys(t)
	pub := filepath.Join(keys, "origin.pem.pub")
	for _, ok := range []string{pub, "id=" + pub, rawPublic(t, pub), "id=" + rawPublic(t, pub)} {
		if _, err := parseTrustKey(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "=", "id=", "nosuchfile", "id=nosuchfile", base64.StdEncoding.EncodeToString(make([]byte, 31))} {
		if _, err := parseTrustKey(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	code, _, errOut := runHdig(t, "get", "--trust-key", "nosuchfile", "http://127.0.0.1:1/")
	if code != 2 || !strings.Contains(errOut, "--trust-key nosuchfile") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestGetTrustKeySubstitution: a proxy answers /old.js with the origin's
// signed response for /app.js (same key, digests that match its own
// body): the signature covers the request's path, so it fails (exit 1).
func TestGetTrustKeySubstitution(t *testing.T) {
	keys, site := signKeys(t), t.TempDir()
	os.WriteFile(filepath.Join(site, "app.js"), versionText(1), 0o644)
	os.WriteFile(filepath.Join(site, "old.js"), versionText(2), 0o644)
	origin, err := url.Parse(startServe(t, site, "--sign-key", filepath.Join(keys, "origin.pem")))
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(origin); pr.Out.URL.Path = "/app.js" },
		Transport: &http.Transport{DisableCompression: true}, // no gzip asked for and undone on the way
	}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	pub := filepath.Join(keys, "origin.pem.pub")
	o := filepath.Join(t.TempDir(), "old.js")
	code, v, errOut := getJSON(t, "--no-cache", "--no-delta", "--trust-key", pub, "-o", o, srv.URL+"/old.js")
	if code != 1 || v.Verdict != "mismatch" || !strings.Contains(errOut, "bad signature: sig1") {
		t.Errorf("substituted response: exit %d, verdict %s: %s", code, v.Verdict, errOut)
	}
	assertNoFile(t, o)

	// With sig1 dropped, only the sri signature (Chromium's profile: it
	// covers Unencoded-Digest alone) is left: the bytes are the signer's,
	// and the verdict says the URL is not bound.
	proxy.ModifyResponse = func(resp *http.Response) error {
		for _, f := range []string{"Signature-Input", "Signature"} {
			v := resp.Header.Get(f)
			resp.Header.Set(f, v[strings.Index(v, "sri="):])
		}
		return nil
	}
	code, v, errOut = getJSON(t, "--no-cache", "--no-delta", "--trust-key", pub, "-o", o, srv.URL+"/old.js")
	if code != 0 || v.Verdict != "authentic" || !strings.Contains(errOut, "does not cover the request's path") {
		t.Errorf("sri only: exit %d, verdict %s: %s", code, v.Verdict, errOut)
	}
}
