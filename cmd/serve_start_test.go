package cmd

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeCert writes a self-signed certificate and its key for 127.0.0.1.
func writeCert(t *testing.T, dir, name string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	must(os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	return certFile, keyFile
}

// TestServeStartupErrors: bad certificates, keys and addresses are found
// before the "serving" line, which scripts read as "up", and exit 2.
func TestServeStartupErrors(t *testing.T) {
	dir, tls := t.TempDir(), t.TempDir()
	certA, keyA := writeCert(t, tls, "a")
	_, keyB := writeCert(t, tls, "b")
	junk := filepath.Join(tls, "junk.pem")
	os.WriteFile(junk, []byte("not a certificate\n"), 0o644)
	cases := map[string][]string{
		"key of another certificate": {"--tls-cert", certA, "--tls-key", keyB},
		"missing certificate":        {"--tls-cert", filepath.Join(tls, "missing.crt"), "--tls-key", keyA},
		"missing key":                {"--tls-cert", certA, "--tls-key", filepath.Join(tls, "missing.key")},
		"junk certificate":           {"--tls-cert", junk, "--tls-key", keyA},
		"port out of range":          {"--addr", ":99999"},
		"negative port":              {"--addr", "127.0.0.1:-1"},
		"port name unknown":          {"--addr", "127.0.0.1:no-such-service"},
		"host not local":             {"--addr", "192.0.2.1:0"},
	}
	for name, extra := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			args := append([]string{"serve", dir, "--addr", "127.0.0.1:0"}, extra...)
			code, out, errOut := runHdigCtx(t, ctx, args...)
			if code != ExitUsage || out != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing\nstderr: %s", code, out, errOut)
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") > 0 || errOut == "" {
				t.Errorf("want one line of error on stderr, got %q", errOut)
			}
		})
	}
}

// TestServeTLSStarts: a matching pair serves HTTPS.
func TestServeTLSStarts(t *testing.T) {
	certA, keyA := writeCert(t, t.TempDir(), "a")
	ctx, cancel := context.WithCancel(context.Background())
	ios, _, _, _ := Test()
	pr, pw := io.Pipe()
	ios.Out = pw
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, ios, []string{"serve", t.TempDir(), "--addr", "127.0.0.1:0", "--tls-cert", certA, "--tls-key", keyA})
		pw.Close()
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	if !strings.HasPrefix(line, "serving ") || !strings.Contains(line, " at https://127.0.0.1:") {
		t.Errorf("first line %q", line)
	}
	cancel()
	go io.Copy(io.Discard, pr)
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d after cancel, want 0", code)
	}
}
