package httpsig

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"testing"
	"time"
)

// Other everyday text forms of a
// public key (the body of a PEM file without its armor lines, the JWK "x"
// base64url value, hex, a JWK document) must not be taken as an HMAC
// secret either: whoever knows the public key could forge hmac-sha256
// (found by review: only raw DER, OpenSSH lines and padded base64 were
// refused).
func TestPublicKeyTextFormsAreNoSecret(t *testing.T) {
	k, _ := GenerateKey(Ed25519)
	_, pub, _ := MarshalKey(k)
	blk, _ := pem.Decode(pub)
	raw := k.(ed25519.PrivateKey).Public().(ed25519.PublicKey)
	forms := map[string][]byte{
		"base64 DER SPKI (PEM body)": []byte(base64.StdEncoding.EncodeToString(blk.Bytes) + "\n"),
		"hex DER SPKI":               []byte(hex.EncodeToString(blk.Bytes) + "\n"),
		"base64url DER SPKI":         []byte(base64.RawURLEncoding.EncodeToString(blk.Bytes)),
		"JWK": []byte(fmt.Sprintf(`{"kty":"OKP","crv":"Ed25519","x":%q}`,
			base64.RawURLEncoding.EncodeToString(raw))),
	}
	for name, b := range forms {
		vk, err := LoadVerifyingKey(b)
		if err == nil {
			// Show the forgery: the public bytes sign as hmac-sha256.
			s, _ := NewSigner(HMACSHA256, append([]byte(nil), b...))
			v, _ := NewVerifier("", vk)
			m := signedResponse(t, s, Params{KeyID: "origin"})
			_, verr := Verify(m, Policy{Keys: []Key{{ID: "origin", Verifier: v}}})
			t.Errorf("%s: public key loaded as a %d-byte HMAC secret; forged signature verifies: %v", name, len(b), verr == nil)
		}
	}
}

// The usual forms of a 256-bit HMAC secret are taken as one (found by a
// second review: a first fix refused every encoding of 32 bytes, and with
// them `openssl rand -hex 32` and secrets.token_urlsafe()).
func TestCommonHMACSecretsLoad(t *testing.T) {
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(i*37 + 11)
	}
	for name, s := range map[string]string{
		"openssl rand -hex 32":    hex.EncodeToString(b) + "\n",
		"secrets.token_urlsafe()": base64.RawURLEncoding.EncodeToString(b) + "\n",
		"openssl rand -base64 48": base64.StdEncoding.EncodeToString(append(b, b[:16]...)) + "\n",
	} {
		if _, err := LoadVerifyingKey([]byte(s)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCertificateIsNoSecret: a certificate carries a public key and is
// public itself, as are an RFC 4716 (ssh-keygen -e) public key and an
// authorized_keys line with options: none is taken as an HMAC secret,
// which anyone who has the file could use to forge hmac-sha256 (found by
// review: publicKeyForm knew bare SPKI and PKCS#1 only, not a
// certificate, and OpenSSH lines only at the start).
func TestCertificateIsNoSecret(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "origin"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	ssh := "AAAAC3NzaC1lZDI1NTE5AAAAIHhXb2k8dX4wmiAK0ZUDmL9BaeDkgJYbLaAyN7E6mXfl"
	forms := map[string][]byte{
		"DER certificate":              der,
		"base64 DER certificate":       []byte(base64.StdEncoding.EncodeToString(der) + "\n"),
		"hex DER certificate":          []byte(hex.EncodeToString(der)),
		"RFC 4716 public key":          []byte("---- BEGIN SSH2 PUBLIC KEY ----\nComment: \"user@host\"\n" + ssh + "\n---- END SSH2 PUBLIC KEY ----\n"),
		"authorized_keys with options": []byte(`from="10.0.0.1",no-pty ssh-ed25519 ` + ssh + " user@host\n"),
	}
	for name, b := range forms {
		if _, err := LoadVerifyingKey(b); err == nil {
			t.Errorf("%s: loaded as a %d-byte HMAC secret", name, len(b))
		}
	}
}

// TestDERPrivateKeyIsNoSecret: a private key in DER (openssl genpkey
// -outform DER) is not an HMAC secret: hdig sign --key k.der signed
// hmac-sha256 with the key's bytes, a signature only a holder of the
// private key could check, where an Ed25519 or ECDSA one was meant (found
// by review).
func TestDERPrivateKeyIsNoSecret(t *testing.T) {
	for _, alg := range []string{Ed25519, ECDSAP256SHA256} {
		k, _ := GenerateKey(alg)
		priv, _, _ := MarshalKey(k)
		blk, _ := pem.Decode(priv)
		for _, load := range []func([]byte) (any, error){LoadSigningKey, LoadVerifyingKey} {
			if got, err := load(blk.Bytes); err == nil {
				t.Errorf("%s DER private key loaded as a %T", alg, got)
			}
		}
	}
}
