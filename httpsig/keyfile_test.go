package httpsig

import (
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"
)

// TestGenerateMarshalLoad: a key of every algorithm survives PEM (or raw
// secret) and signs what its loaded public half verifies.
func TestGenerateMarshalLoad(t *testing.T) {
	for _, alg := range []string{Ed25519, ECDSAP256SHA256, ECDSAP384SHA384, RSAPSSSHA512, HMACSHA256} {
		t.Run(alg, func(t *testing.T) {
			k, err := GenerateKey(alg)
			if err != nil {
				t.Fatal(err)
			}
			priv, pub, err := MarshalKey(k)
			if err != nil {
				t.Fatal(err)
			}
			if pub == nil {
				pub = priv
			}
			sk, err := LoadSigningKey(priv)
			if err != nil {
				t.Fatal(err)
			}
			vk, err := LoadVerifyingKey(pub)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSigner(alg, sk)
			if err != nil {
				t.Fatal(err)
			}
			v, err := NewVerifier(alg, vk)
			if err != nil {
				t.Fatal(err)
			}
			m := signedResponse(t, s, Params{KeyID: "g"})
			if _, err := Verify(m, Policy{Keys: []Key{{ID: "g", Verifier: v}}}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := GenerateKey("rsa"); err == nil || !strings.Contains(err.Error(), "ed25519") {
		t.Errorf("GenerateKey(rsa) = %v", err)
	}
}

// TestLoadKeyErrors: short secrets, bad PEM, the RFC's RSA-PSS PKCS#8 key
// (id-RSASSA-PSS, which crypto/x509 does not read) loads.
func TestLoadKeyErrors(t *testing.T) {
	for _, b := range []string{"short", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"} {
		if _, err := LoadSigningKey([]byte(b)); err == nil {
			t.Errorf("LoadSigningKey(%q) accepted", b)
		}
	}
	k, err := LoadSigningKey(readFile(t, "keys/test-key-rsa-pss.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSigner(RSAPSSSHA512, k); err != nil {
		t.Fatal(err)
	}
}

// TestPublicKeyIsNoSecret: a public key in a form other than PEM (DER
// SPKI, an OpenSSH line, the base64 of a raw Ed25519 key) is never taken
// as an HMAC secret: anyone who knows the public key could then forge an
// hmac-sha256 signature that verifies.
func TestPublicKeyIsNoSecret(t *testing.T) {
	for _, alg := range []string{Ed25519, ECDSAP256SHA256} {
		k, err := GenerateKey(alg)
		if err != nil {
			t.Fatal(err)
		}
		_, pub, err := MarshalKey(k)
		if err != nil {
			t.Fatal(err)
		}
		blk, _ := pem.Decode(pub)
		forms := map[string][]byte{"DER SPKI": blk.Bytes}
		if e, ok := k.(ed25519.PrivateKey); ok {
			raw := e.Public().(ed25519.PublicKey)
			forms["base64"] = []byte(base64.StdEncoding.EncodeToString(raw) + "\n")
			forms["OpenSSH"] = []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHhXb2k8dX4wmiAK0ZUDmL9BaeDkgJYbLaAyN7E6mXfl user@host\n")
		}
		for name, b := range forms {
			if _, err := LoadVerifyingKey(b); err == nil || !strings.Contains(err.Error(), "public key") {
				t.Errorf("%s %s: LoadVerifyingKey = %v, want an error naming a public key", alg, name, err)
			}
			if _, err := LoadSigningKey(b); err == nil {
				t.Errorf("%s %s: LoadSigningKey accepted a public key as a secret", alg, name)
			}
		}
	}
	// A secret hdig keygen makes still loads.
	s, _ := GenerateKey(HMACSHA256)
	if _, err := LoadVerifyingKey(s.([]byte)); err != nil {
		t.Errorf("HMAC secret: %v", err)
	}
}

// TestRSAPSSPublicKey: openssl's RSA-PSS public key (`openssl genpkey
// -algorithm RSA-PSS`, then `openssl pkey -pubout`) is an SPKI whose
// algorithm is id-RSASSA-PSS, which crypto/x509 does not read: as a PEM
// file it loads and verifies what its private key signs, as DER it is no
// HMAC secret (found by review: the PEM form failed with "unknown public
// key algorithm", and the DER form loaded as a secret anyone could sign
// with).
func TestRSAPSSPublicKey(t *testing.T) {
	k, err := LoadSigningKey(readFile(t, "keys/test-key-rsa-pss.pem"))
	if err != nil {
		t.Fatal(err)
	}
	priv := k.(PSSPrivateKey).PrivateKey
	der, err := asn1.Marshal(struct {
		Algo pkix.AlgorithmIdentifier
		Key  asn1.BitString
	}{pkix.AlgorithmIdentifier{Algorithm: oidRSAPSS}, asn1.BitString{Bytes: x509.MarshalPKCS1PublicKey(&priv.PublicKey), BitLength: 8 * len(x509.MarshalPKCS1PublicKey(&priv.PublicKey))}})
	if err != nil {
		t.Fatal(err)
	}
	vk, err := LoadVerifyingKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	if err != nil {
		t.Fatalf("PEM RSA-PSS public key: %v", err)
	}
	s, _ := NewSigner(RSAPSSSHA512, priv)
	v, err := NewVerifier(RSAPSSSHA512, vk)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(signedResponse(t, s, Params{KeyID: "p"}), Policy{Keys: []Key{{ID: "p", Verifier: v}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadVerifyingKey(der); err == nil {
		t.Error("DER RSA-PSS public key loaded as an HMAC secret")
	}
}
