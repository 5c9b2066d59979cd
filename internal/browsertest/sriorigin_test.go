package browsertest_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"

	"github.com/hdig/hdig/httpsig"
)

// SRITag is the tag of the signature-based integrity profile
// (https://wicg.github.io/signature-based-sri/): a signature with it must
// cover exactly ("unencoded-digest";sf) and name its Ed25519 public key,
// base64, in keyid.
const SRITag = "ed25519-integrity"

// signedOrigin is a minimal origin written with package httpsig, standing
// in for hdig serve --sign-key: every file carries Unencoded-Digest and an
// Ed25519 signature of it in the signature-based integrity profile.
type signedOrigin struct {
	files  map[string][]byte
	signer httpsig.Signer
	keyID  string // the keyid sent: base64 of the public key it claims
	// tamper, when set, changes the body after it is signed: what a
	// mirror or a proxy that alters the bytes sends.
	tamper func([]byte) []byte
}

// newSignedOrigin signs with priv and names pub in keyid (pub is priv's
// public key, unless the test forges a signature).
func newSignedOrigin(files map[string][]byte, priv ed25519.PrivateKey, pub ed25519.PublicKey) (*signedOrigin, error) {
	s, err := httpsig.NewSigner(httpsig.Ed25519, priv)
	if err != nil {
		return nil, err
	}
	return &signedOrigin{files: files, signer: s, keyID: base64.StdEncoding.EncodeToString(pub)}, nil
}

func (o *signedOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := o.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript")
	h.Set("Cache-Control", "no-store")
	h.Set("Unencoded-Digest", sfSHA256(body))
	cs, err := httpsig.ParseComponents([]string{`"unencoded-digest";sf`})
	if err == nil {
		resp := &http.Response{StatusCode: http.StatusOK, Header: h}
		_, err = httpsig.Sign(httpsig.ResponseMessage(resp, r), "sig", httpsig.Params{Components: cs, KeyID: o.keyID, Tag: SRITag}, o.signer)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if o.tamper != nil {
		body = o.tamper(body)
	}
	w.Write(body)
}
