package httpsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
)

// Algorithm names of the HTTP Signature Algorithms registry (§6.2.2).
const (
	Ed25519         = "ed25519"
	ECDSAP256SHA256 = "ecdsa-p256-sha256"
	ECDSAP384SHA384 = "ecdsa-p384-sha384"
	HMACSHA256      = "hmac-sha256"
	RSAPSSSHA512    = "rsa-pss-sha512"
	RSAV15SHA256    = "rsa-v1_5-sha256"
)

// MinHMACKey and MinRSABits bound the keys accepted.
const (
	MinHMACKey = 32
	MinRSABits = 2048
)

// ErrBadSignature is returned (wrapped) when a signature does not verify.
var ErrBadSignature = errors.New("signature does not verify")

// ErrNeedAlg: an RSA key was given without an algorithm (RSA keys serve
// two: RSAPSSSHA512 and RSAV15SHA256).
var ErrNeedAlg = errors.New("httpsig: an RSA key needs an algorithm")

// Signer produces HTTP_SIGN(M, Ks) for one algorithm and key.
type Signer interface {
	Alg() string
	Sign(base []byte) ([]byte, error)
}

// Verifier checks HTTP_VERIFY(M, Kv, S) for one algorithm and key.
type Verifier interface {
	Alg() string
	Verify(base, sig []byte) error
}

type key struct {
	alg  string
	priv any // ed25519.PrivateKey, *ecdsa.PrivateKey, *rsa.PrivateKey, []byte
	pub  any // ed25519.PublicKey, *ecdsa.PublicKey, *rsa.PublicKey, []byte
}

func (k *key) Alg() string { return k.alg }

// NewSigner returns a Signer for alg with a private key:
// ed25519.PrivateKey, *ecdsa.PrivateKey (P-256 or P-384), *rsa.PrivateKey,
// PSSPrivateKey or a []byte HMAC secret. An empty alg is taken from the key
// (an rsaEncryption key, *rsa.PrivateKey, needs it).
func NewSigner(alg string, priv any) (Signer, error) {
	k, err := newKey(alg, priv, true)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// NewVerifier returns a Verifier for alg with a public key (or a private
// key, whose public half is used; the HMAC secret for hmac-sha256).
func NewVerifier(alg string, pub any) (Verifier, error) {
	k, err := newKey(alg, pub, false)
	if err != nil {
		return nil, err
	}
	return k, nil
}

func newKey(alg string, k any, private bool) (*key, error) {
	pub, priv := k, any(nil)
	switch v := k.(type) {
	case ed25519.PrivateKey:
		pub, priv = v.Public(), v
	case *ecdsa.PrivateKey:
		pub, priv = &v.PublicKey, v
	case *rsa.PrivateKey:
		pub, priv = &v.PublicKey, v
	case PSSPrivateKey:
		pub, priv = PSSPublicKey{&v.PublicKey}, v.PrivateKey
	case []byte:
		priv = v
	}
	if private && priv == nil {
		return nil, fmt.Errorf("httpsig: signing needs a private key, got %T", k)
	}
	want, err := algOf(pub)
	if err != nil {
		return nil, err
	}
	if alg == "" {
		if want == "rsa" {
			return nil, fmt.Errorf("%w: %s or %s", ErrNeedAlg, RSAPSSSHA512, RSAV15SHA256)
		}
		alg = want
	}
	if alg != want && !(want == "rsa" && (alg == RSAPSSSHA512 || alg == RSAV15SHA256)) {
		return nil, fmt.Errorf("httpsig: algorithm %q does not fit a %s key", alg, describe(pub))
	}
	if p, ok := pub.(PSSPublicKey); ok {
		pub = p.PublicKey
	}
	return &key{alg: alg, priv: priv, pub: pub}, nil
}

// algOf is the algorithm a public key implies ("rsa" for either RSA one).
func algOf(pub any) (string, error) {
	switch v := pub.(type) {
	case ed25519.PublicKey:
		if len(v) != ed25519.PublicKeySize {
			return "", fmt.Errorf("httpsig: ed25519 key of %d bytes, want %d", len(v), ed25519.PublicKeySize)
		}
		return Ed25519, nil
	case *ecdsa.PublicKey:
		switch v.Curve {
		case elliptic.P256():
			return ECDSAP256SHA256, nil
		case elliptic.P384():
			return ECDSAP384SHA384, nil
		}
		return "", fmt.Errorf("httpsig: ECDSA curve %s is not P-256 or P-384", v.Curve.Params().Name)
	case *rsa.PublicKey:
		if v.N.BitLen() < MinRSABits {
			return "", fmt.Errorf("httpsig: RSA key of %d bits, want at least %d", v.N.BitLen(), MinRSABits)
		}
		return "rsa", nil
	case PSSPublicKey:
		if v.PublicKey == nil {
			return "", fmt.Errorf("httpsig: empty RSA-PSS key")
		}
		if _, err := algOf(v.PublicKey); err != nil {
			return "", err
		}
		return RSAPSSSHA512, nil
	case []byte:
		if len(v) < MinHMACKey {
			return "", fmt.Errorf("httpsig: HMAC secret of %d bytes, want at least %d", len(v), MinHMACKey)
		}
		return HMACSHA256, nil
	}
	return "", fmt.Errorf("httpsig: unsupported key type %T", pub)
}

func describe(pub any) string {
	a, err := algOf(pub)
	if err != nil {
		return fmt.Sprintf("%T", pub)
	}
	return a
}

func (k *key) Sign(base []byte) ([]byte, error) {
	switch k.alg {
	case Ed25519:
		return ed25519.Sign(k.priv.(ed25519.PrivateKey), base), nil
	case ECDSAP256SHA256, ECDSAP384SHA384:
		p := k.priv.(*ecdsa.PrivateKey)
		der, err := ecdsa.SignASN1(rand.Reader, p, ecHash(k.alg, base))
		if err != nil {
			return nil, fmt.Errorf("httpsig: %s: %v", k.alg, err)
		}
		return DERToRS(der, curveBytes(k.alg))
	case HMACSHA256:
		mac := hmac.New(sha256.New, k.priv.([]byte))
		mac.Write(base)
		return mac.Sum(nil), nil
	case RSAPSSSHA512:
		h := sha512.Sum512(base)
		return rsa.SignPSS(rand.Reader, k.priv.(*rsa.PrivateKey), crypto.SHA512, h[:], &rsa.PSSOptions{SaltLength: 64})
	case RSAV15SHA256:
		h := sha256.Sum256(base)
		return rsa.SignPKCS1v15(rand.Reader, k.priv.(*rsa.PrivateKey), crypto.SHA256, h[:])
	}
	return nil, fmt.Errorf("httpsig: unknown algorithm %q", k.alg)
}

func (k *key) Verify(base, sig []byte) error {
	ok := false
	switch k.alg {
	case Ed25519:
		ok = len(sig) == ed25519.SignatureSize && ed25519.Verify(k.pub.(ed25519.PublicKey), base, sig)
	case ECDSAP256SHA256, ECDSAP384SHA384:
		n := curveBytes(k.alg)
		if len(sig) != 2*n {
			return fmt.Errorf("httpsig: %s signature of %d bytes, want %d: %w", k.alg, len(sig), 2*n, ErrBadSignature)
		}
		der, err := RSToDER(sig)
		ok = err == nil && ecdsa.VerifyASN1(k.pub.(*ecdsa.PublicKey), ecHash(k.alg, base), der)
	case HMACSHA256:
		mac := hmac.New(sha256.New, k.pub.([]byte))
		mac.Write(base)
		ok = hmac.Equal(mac.Sum(nil), sig)
	case RSAPSSSHA512:
		h := sha512.Sum512(base)
		ok = rsa.VerifyPSS(k.pub.(*rsa.PublicKey), crypto.SHA512, h[:], sig, &rsa.PSSOptions{SaltLength: 64}) == nil
	case RSAV15SHA256:
		h := sha256.Sum256(base)
		ok = rsa.VerifyPKCS1v15(k.pub.(*rsa.PublicKey), crypto.SHA256, h[:], sig) == nil
	default:
		return fmt.Errorf("httpsig: unknown algorithm %q", k.alg)
	}
	if !ok {
		return fmt.Errorf("httpsig: %s: %w", k.alg, ErrBadSignature)
	}
	return nil
}

func ecHash(alg string, base []byte) []byte {
	if alg == ECDSAP384SHA384 {
		h := sha512.Sum384(base)
		return h[:]
	}
	h := sha256.Sum256(base)
	return h[:]
}

func curveBytes(alg string) int {
	if alg == ECDSAP384SHA384 {
		return 48
	}
	return 32
}

type ecdsaSig struct{ R, S *big.Int }

// DERToRS converts an ASN.1 DER ECDSA signature (as openssl and
// ecdsa.SignASN1 produce) to r||s, each zero-padded to n bytes (§3.3.4).
func DERToRS(der []byte, n int) ([]byte, error) {
	var s ecdsaSig
	rest, err := asn1.Unmarshal(der, &s)
	if err != nil || len(rest) != 0 || s.R == nil || s.S == nil {
		return nil, fmt.Errorf("httpsig: malformed DER ECDSA signature")
	}
	if s.R.Sign() <= 0 || s.S.Sign() <= 0 || s.R.BitLen() > 8*n || s.S.BitLen() > 8*n {
		return nil, fmt.Errorf("httpsig: ECDSA r or s out of range for %d-byte integers", n)
	}
	out := make([]byte, 2*n)
	s.R.FillBytes(out[:n])
	s.S.FillBytes(out[n:])
	return out, nil
}

// RSToDER converts r||s (two equal halves) to an ASN.1 DER signature.
func RSToDER(rs []byte) ([]byte, error) {
	if len(rs) == 0 || len(rs)%2 != 0 {
		return nil, fmt.Errorf("httpsig: r||s of %d bytes, want an even length", len(rs))
	}
	n := len(rs) / 2
	return asn1.Marshal(ecdsaSig{new(big.Int).SetBytes(rs[:n]), new(big.Int).SetBytes(rs[n:])})
}
