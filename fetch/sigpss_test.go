package fetch

import (
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// pssPublicPEM is the public key of priv as openssl writes an RSA-PSS key's
// (`openssl genpkey -algorithm RSA-PSS`, `openssl pkey -pubout`): an SPKI
// whose algorithm is id-RSASSA-PSS.
func pssPublicPEM(t *testing.T, priv *rsa.PrivateKey) []byte {
	t.Helper()
	pkcs1 := x509.MarshalPKCS1PublicKey(&priv.PublicKey)
	der, err := asn1.Marshal(struct {
		Algo pkix.AlgorithmIdentifier
		Key  asn1.BitString
	}{pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}}, asn1.BitString{Bytes: pkcs1, BitLength: 8 * len(pkcs1)}})
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// An RSA-PSS key (id-RSASSA-PSS, RFC 4055) is
// a key for RSASSA-PSS only: trusted, it verifies rsa-pss-sha512
// signatures, and an rsa-v1_5-sha256 signature by its private key under
// its keyid is a failed one (alg does not fit the key, exit 1), not a
// valid one. It was valid: an RSA key of either kind was trusted for both
// RSA algorithms.
func TestPSSKeyBindsAlg(t *testing.T) {
	b, err := os.ReadFile("../httpsig/testdata/rfc9421/keys/test-key-rsa-pss.pem")
	if err != nil {
		t.Fatal(err)
	}
	priv, err := httpsig.LoadSigningKey(b)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := httpsig.LoadVerifyingKey(pssPublicPEM(t, rsaOf(t, priv)))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := TrustedKeys("o", pub)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trust{Keys: keys, Skew: time.Minute, Now: func() time.Time { return sigT0 }}
	for _, alg := range []string{httpsig.RSAPSSSHA512, httpsig.RSAV15SHA256} {
		h := http.Header{}
		h.Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
		s, err := httpsig.NewSigner(alg, rsaOf(t, priv))
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := httpsig.ParseComponents([]string{"repr-digest"})
		p := httpsig.Params{Components: cs, Created: sigT0, KeyID: "o", Alg: alg}
		if _, err := httpsig.Sign(httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, nil), "s", p, s); err != nil {
			t.Fatal(err)
		}
		res := &Result{Status: 200, Header: h}
		res.Verdict.Add(verify.Check{Field: verify.ReprDigest, Algorithm: "sha-256", Expected: sigZero, Result: verify.Match})
		err = tr.authenticate(res, true)
		if alg == httpsig.RSAPSSSHA512 && err != nil {
			t.Errorf("%s: %v, want authentic", alg, err)
		}
		if alg == httpsig.RSAV15SHA256 && !errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v, want ErrSignature; signatures %+v", alg, err, res.Signatures)
		}
	}
}

// rsaOf is the *rsa.PrivateKey of a loaded RSA or RSA-PSS key.
func rsaOf(t *testing.T, k any) *rsa.PrivateKey {
	t.Helper()
	switch v := k.(type) {
	case *rsa.PrivateKey:
		return v
	case httpsig.PSSPrivateKey:
		return v.PrivateKey
	}
	t.Fatalf("%T is not an RSA key", k)
	return nil
}
