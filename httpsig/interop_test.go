package httpsig

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"github.com/hdig/hdig/internal/peertest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// opensslPath returns the openssl binary. Without it the test is skipped,
// except in CI (CI set), where it fails.
func opensslPath(t *testing.T) string {
	return peertest.Need(t, "openssl")
}

func openssl(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command(opensslPath(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("openssl %v: %v\n%s", args, err, out)
	}
}

func writeTemp(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

type interopKey struct {
	name, alg string
	priv, pub string // PEM files
	digest    func([]byte) []byte
}

func interopKeys(t *testing.T, dir string) []interopKey {
	t.Helper()
	p384 := filepath.Join(dir, "p384.pem")
	openssl(t, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", p384)
	openssl(t, "pkey", "-in", p384, "-pubout", "-out", p384+".pub")
	return []interopKey{
		{"ed25519", Ed25519, filepath.Join(vectors, "keys/test-key-ed25519.pem"), filepath.Join(vectors, "keys/test-key-ed25519.pub.pem"), nil},
		{"ecdsa-p256", ECDSAP256SHA256, filepath.Join(vectors, "keys/test-key-ecc-p256.pem"), filepath.Join(vectors, "keys/test-key-ecc-p256.pub.pem"),
			func(b []byte) []byte { h := sha256.Sum256(b); return h[:] }},
		{"ecdsa-p384", ECDSAP384SHA384, p384, p384 + ".pub", func(b []byte) []byte { h := sha512.Sum384(b); return h[:] }},
	}
}

// interopMessage is test-response with a Signature-Input for label "o".
func interopMessage(t *testing.T, alg string) (Message, Params) {
	t.Helper()
	m := message(t, "test-response", "")
	cs, err := ParseComponents([]string{"@status", "content-type", "content-digest", "content-length"})
	if err != nil {
		t.Fatal(err)
	}
	return m, Params{Components: cs, Created: t0, KeyID: "o", Alg: alg}
}

// TestOpenSSLSignsHdigVerifies: openssl pkeyutl signs the signature base
// hdig builds (Ed25519 raw; ECDSA over the digest, DER converted to r||s);
// hdig verifies the message carrying it.
func TestOpenSSLSignsHdigVerifies(t *testing.T) {
	dir := t.TempDir()
	for _, k := range interopKeys(t, dir) {
		t.Run(k.name, func(t *testing.T) {
			m, p := interopMessage(t, k.alg)
			base, err := Base(m, p)
			if err != nil {
				t.Fatal(err)
			}
			in, sigFile := writeTemp(t, dir, k.name+".base", base), filepath.Join(dir, k.name+".sig")
			if k.digest == nil {
				openssl(t, "pkeyutl", "-sign", "-inkey", k.priv, "-rawin", "-in", in, "-out", sigFile)
			} else {
				in = writeTemp(t, dir, k.name+".dgst", k.digest(base))
				openssl(t, "pkeyutl", "-sign", "-inkey", k.priv, "-in", in, "-out", sigFile)
			}
			sig, err := os.ReadFile(sigFile)
			if err != nil {
				t.Fatal(err)
			}
			if k.digest != nil {
				if sig, err = DERToRS(sig, curveBytes(k.alg)); err != nil {
					t.Fatal(err)
				}
			}
			h := m.Response.Header
			h.Set("Signature-Input", "o="+p.String())
			h.Set("Signature", "o=:"+base64.StdEncoding.EncodeToString(sig)+":")
			pub, err := ParsePublicKey(mustRead(t, k.pub))
			if err != nil {
				t.Fatal(err)
			}
			v, err := NewVerifier(k.alg, pub)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(m, Policy{Keys: []Key{{ID: "o", Verifier: v}}, Now: fixedClock(t0)}); err != nil {
				t.Fatal(err)
			}
			h.Set("Content-Length", "24")
			if _, err := Verify(m, Policy{Keys: []Key{{ID: "o", Verifier: v}}, Now: fixedClock(t0)}); err == nil {
				t.Fatal("verified after content-length changed")
			}
		})
	}
}

// TestHdigSignsOpenSSLVerifies: hdig signs; openssl pkeyutl -verify checks
// the signature over the same base (ECDSA after r||s to DER).
func TestHdigSignsOpenSSLVerifies(t *testing.T) {
	dir := t.TempDir()
	for _, k := range interopKeys(t, dir) {
		t.Run(k.name, func(t *testing.T) {
			priv, err := ParsePrivateKey(mustRead(t, k.priv))
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSigner(k.alg, priv)
			if err != nil {
				t.Fatal(err)
			}
			m, p := interopMessage(t, k.alg)
			sig, err := Sign(m, "o", p, s)
			if err != nil {
				t.Fatal(err)
			}
			base, err := Base(m, p)
			if err != nil {
				t.Fatal(err)
			}
			in := writeTemp(t, dir, k.name+".base", base)
			if k.digest != nil {
				in = writeTemp(t, dir, k.name+".dgst", k.digest(base))
				if sig, err = RSToDER(sig); err != nil {
					t.Fatal(err)
				}
			}
			verifyArgs := func(sigFile string) []string {
				args := []string{"pkeyutl", "-verify", "-pubin", "-inkey", k.pub, "-in", in, "-sigfile", sigFile}
				if k.digest == nil {
					args = append(args, "-rawin")
				}
				return args
			}
			openssl(t, verifyArgs(writeTemp(t, dir, k.name+".sig", sig))...)
			bad := append([]byte(nil), sig...)
			bad[len(bad)/2] ^= 1
			out, err := exec.Command(opensslPath(t), verifyArgs(writeTemp(t, dir, k.name+".bad", bad))...).CombinedOutput()
			if err == nil {
				t.Fatalf("openssl verified a flipped signature: %s", out)
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
