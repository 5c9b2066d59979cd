package browsertest_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/internal/browsertest"
)

// loadScript adds <script src integrity> to the page and reports whether
// it loaded and what it set in window.sriRan.
const loadScript = `((src, integrity) => new Promise(resolve => {
	const s = document.createElement("script");
	s.src = src;
	s.integrity = integrity;
	const done = loaded => resolve({loaded, ran: String(window.sriRan || "")});
	s.onload = () => done(true);
	s.onerror = () => done(false);
	document.head.appendChild(s);
}))`

type scriptResult struct {
	Loaded bool   `json:"loaded"`
	Ran    string `json:"ran"`
}

const signedScriptPath = "/lib/signed.js"

// signedScript sets window.sriRan when it runs.
var signedScript = []byte("window.sriRan = \"signed.js ran\";\n")

// proveSignedScript loads signedScriptPath from origin (same origin as the
// page) with integrity="ed25519-KEY" for key, and checks that it runs, or
// is blocked, as wantRun says. origin may be hdig serve --sign-key.
func proveSignedScript(t *testing.T, b *browsertest.Browser, origin http.Handler, key ed25519.PublicKey, wantRun bool) {
	t.Helper()
	ctx := browsertest.Context(t)
	rec := &recorder{next: origin}
	mux := http.NewServeMux()
	mux.Handle("/", rec)
	mux.Handle("GET /{$}", blankPage)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	p := browsertest.NewPage(t, ctx, b)
	must(t, p.Navigate(ctx, localhostURL(srv)+"/"))
	integrity := "ed25519-" + base64.StdEncoding.EncodeToString(key)
	var got scriptResult
	must(t, p.Eval(ctx, loadScript+"("+jsString(signedScriptPath)+", "+jsString(integrity)+")", &got))
	ex, _ := rec.last(signedScriptPath)
	if wantRun && (!got.Loaded || got.Ran != "signed.js ran") {
		t.Errorf("<script integrity=%q>: loaded %v, ran %q; want it to run\nresponse: %v\npage log:\n%s", integrity, got.Loaded, got.Ran, ex.Response, p.Log())
	}
	if want := `keyid="` + base64.StdEncoding.EncodeToString(key) + `"`; !strings.Contains(ex.Request.Get("Accept-Signature"), want) {
		t.Errorf("request for %s: Accept-Signature %q, want it to name %s", signedScriptPath, ex.Request.Get("Accept-Signature"), want)
	}
	if !wantRun && (got.Loaded || got.Ran != "") {
		t.Errorf("<script integrity=%q>: loaded %v, ran %q; want it blocked\nresponse: %v", integrity, got.Loaded, got.Ran, ex.Response)
	}
}

func keyPair(t *testing.T, seed byte) (ed25519.PublicKey, ed25519.PrivateKey) {
	s := make([]byte, ed25519.SeedSize)
	for i := range s {
		s[i] = seed
	}
	priv := ed25519.NewKeyFromSeed(s)
	return priv.Public().(ed25519.PublicKey), priv
}

func TestSignedScriptRunsInBrowser(t *testing.T) {
	b := sriBrowser(t)
	pub, priv := keyPair(t, 1)
	o, err := newSignedOrigin(map[string][]byte{signedScriptPath: signedScript}, priv, pub)
	must(t, err)
	proveSignedScript(t, b, o, pub, true)
}

// A body changed after signing (the signature still matches the
// Unencoded-Digest it covers) is blocked: the digest is checked.
func TestTamperedBodyBlockedInBrowser(t *testing.T) {
	b := sriBrowser(t)
	pub, priv := keyPair(t, 1)
	o, err := newSignedOrigin(map[string][]byte{signedScriptPath: signedScript}, priv, pub)
	must(t, err)
	o.tamper = func(b []byte) []byte { return []byte(strings.Replace(string(b), "signed.js ran", "tampered!!!!!", 1)) }
	proveSignedScript(t, b, o, pub, false)
}

// A signature made with another key under the right keyid is blocked.
func TestForgedSignatureBlockedInBrowser(t *testing.T) {
	b := sriBrowser(t)
	pub, _ := keyPair(t, 1)
	_, other := keyPair(t, 2)
	o, err := newSignedOrigin(map[string][]byte{signedScriptPath: signedScript}, other, pub)
	must(t, err)
	proveSignedScript(t, b, o, pub, false)
}

// A script correctly signed by another key than the one integrity names
// is blocked.
func TestOtherKeyBlockedInBrowser(t *testing.T) {
	b := sriBrowser(t)
	pub, _ := keyPair(t, 1)
	otherPub, other := keyPair(t, 2)
	o, err := newSignedOrigin(map[string][]byte{signedScriptPath: signedScript}, other, otherPub)
	must(t, err)
	proveSignedScript(t, b, o, pub, false)
}

// Without any signature the integrity attribute still blocks the script:
// the browser enforces ed25519- integrity rather than ignoring it.
func TestUnsignedScriptBlockedInBrowser(t *testing.T) {
	b := sriBrowser(t)
	pub, _ := keyPair(t, 1)
	plain := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != signedScriptPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Unencoded-Digest", sfSHA256(signedScript))
		w.Write(signedScript)
	})
	proveSignedScript(t, b, plain, pub, false)
}

// sriBrowser is the browser of the signature tests: Chromium 156 enforces
// signature-based integrity (Blink's SignatureBasedIntegrity, the network
// service's SRIMessageSignatureEnforcement) and Unencoded-Digest with its
// default features, so the shared browser, without flags, serves.
func sriBrowser(t *testing.T) *browsertest.Browser { return browsertest.Shared(t) }
