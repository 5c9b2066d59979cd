package httpsig

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
)

// LoadSigningKey reads a key file: PEM (see ParsePrivateKey), else the
// whole file is a raw HMAC secret.
func LoadSigningKey(b []byte) (any, error) {
	if isPEM(b) {
		return ParsePrivateKey(b)
	}
	return rawSecret(b)
}

// LoadVerifyingKey reads a key file: PEM (see ParsePublicKey), else the
// whole file is a raw HMAC secret.
func LoadVerifyingKey(b []byte) (any, error) {
	if isPEM(b) {
		return ParsePublicKey(b)
	}
	return rawSecret(b)
}

func isPEM(b []byte) bool {
	return bytes.Contains(b, []byte("-----BEGIN "))
}

func rawSecret(b []byte) ([]byte, error) {
	if len(b) > maxPEM {
		return nil, fmt.Errorf("httpsig: secret of %d bytes, want at most %d", len(b), maxPEM)
	}
	if len(b) < MinHMACKey {
		return nil, fmt.Errorf("httpsig: not a PEM key, and %d bytes are too few for an HMAC secret (want at least %d)", len(b), MinHMACKey)
	}
	if isDERPrivate(b) {
		return nil, fmt.Errorf("httpsig: not a PEM key, and it is a DER private key, not an HMAC secret: give it in PEM (openssl pkey -inform DER -in KEY -out KEY.pem)")
	}
	if what := publicKeyForm(b); what != "" {
		return nil, fmt.Errorf("httpsig: not a PEM key, and %s, not an HMAC secret: anyone who knows it could forge an hmac-sha256 signature (give a PEM key, or an Ed25519 key's base64 as the argument itself; an HMAC secret must not look like a public key: `openssl rand -base64 48`)", what)
	}
	return append([]byte(nil), b...), nil
}

// isDERPrivate says b is a private key in DER: PKCS#8 (RSASSA-PSS too),
// PKCS#1 or SEC 1.
func isDERPrivate(b []byte) bool {
	if _, err := x509.ParsePKCS8PrivateKey(b); err == nil {
		return true
	}
	if _, err := parsePSSPrivate(b); err == nil {
		return true
	}
	if _, err := x509.ParsePKCS1PrivateKey(b); err == nil {
		return true
	}
	_, err := x509.ParseECPrivateKey(b)
	return err == nil
}

// publicKeyForm names the public form b is in (a DER public key or
// certificate, an OpenSSH line, with options or not, an RFC 4716 key, a
// JWK, the base64 (any alphabet, padded or not) or hex of a DER key or
// certificate, the padded base64 of a raw Ed25519 key as SRI writes it),
// "" if none: a public key taken for a secret would let anyone sign. Other
// encodings of 32 bytes are the usual forms of an HMAC secret (`openssl
// rand -hex 32`, Python's secrets.token_urlsafe()) and are taken as one; a
// raw Ed25519 key given that way fails on the origin's first ed25519
// signature (an HMAC key cannot verify it: exit 1), so the mistake shows.
func publicKeyForm(b []byte) string {
	if what := derForm(b); what != "" {
		return "it is a DER " + what
	}
	t := bytes.TrimSpace(b)
	if bytes.HasPrefix(t, []byte("---- BEGIN SSH2 PUBLIC KEY")) {
		return "it is an RFC 4716 (SSH2) public key"
	}
	for _, f := range bytes.Fields(t) {
		for _, p := range []string{"ssh-", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-"} {
			if bytes.HasPrefix(f, []byte(p)) {
				return "it is an OpenSSH public key"
			}
		}
	}
	if bytes.HasPrefix(t, []byte("{")) && bytes.Contains(t, []byte(`"kty"`)) {
		return "it is a JWK"
	}
	if raw, err := base64.StdEncoding.DecodeString(string(t)); err == nil && len(raw) == ed25519.PublicKeySize {
		return "it is the base64 of a 32-byte (Ed25519) public key"
	}
	for _, dec := range []func(string) ([]byte, error){
		base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString, hex.DecodeString,
	} {
		if raw, err := dec(string(t)); err == nil {
			if what := derForm(raw); what != "" {
				return "it is the base64 or hex of a DER " + what
			}
		}
	}
	return ""
}

// derForm names the public DER structure b is ("" if none): an SPKI or
// PKCS#1 public key, or a certificate, which carries one.
func derForm(b []byte) string {
	if _, err := parseSPKI(b); err == nil {
		return "(SPKI) public key"
	}
	if _, err := x509.ParsePKCS1PublicKey(b); err == nil {
		return "(PKCS#1) RSA public key"
	}
	if _, err := x509.ParseCertificate(b); err == nil {
		return "certificate"
	}
	return ""
}

// GenerateKey makes a new key for alg: ed25519, ECDSA P-256 or P-384, RSA
// 3072 bits, or a 64-byte HMAC secret.
func GenerateKey(alg string) (any, error) {
	switch alg {
	case Ed25519:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return k, err
	case ECDSAP256SHA256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case ECDSAP384SHA384:
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case RSAPSSSHA512, RSAV15SHA256:
		return rsa.GenerateKey(rand.Reader, 3072)
	case HMACSHA256:
		k := make([]byte, 64)
		_, err := rand.Read(k)
		return k, err
	}
	return nil, fmt.Errorf("httpsig: unknown algorithm %q, want one of %s, %s, %s, %s, %s, %s", alg,
		Ed25519, ECDSAP256SHA256, ECDSAP384SHA384, RSAPSSSHA512, RSAV15SHA256, HMACSHA256)
}

// MarshalKey encodes a private key as PEM PKCS#8 and its public key as PEM
// SPKI; an HMAC secret is returned as it is, with no public part.
func MarshalKey(priv any) (private, public []byte, err error) {
	if s, ok := priv.([]byte); ok {
		return append([]byte(nil), s...), nil, nil
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, fmt.Errorf("httpsig: %v", err)
	}
	var pub any
	switch k := priv.(type) {
	case ed25519.PrivateKey:
		pub = k.Public()
	case *ecdsa.PrivateKey:
		pub = &k.PublicKey
	case *rsa.PrivateKey:
		pub = &k.PublicKey
	}
	pder, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, fmt.Errorf("httpsig: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder}), nil
}
