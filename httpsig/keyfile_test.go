package httpsig

import (
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
