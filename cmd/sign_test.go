package cmd

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/httpsig"
)

// TestKeygenSign: hdig keygen makes a key pair, hdig sign prints header
// lines whose signature the public key verifies, covering the digest of
// the file; a changed digest does not verify.
func TestKeygenSign(t *testing.T) {
	dir := t.TempDir()
	key, file := filepath.Join(dir, "origin.pem"), filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, alg := range []string{httpsig.Ed25519, httpsig.ECDSAP256SHA256, httpsig.HMACSHA256} {
		t.Run(alg, func(t *testing.T) {
			code, _, stderr := runHdig(t, "keygen", "--force", "-a", alg, "-o", key)
			if code != 0 {
				t.Fatalf("keygen: exit %d: %s", code, stderr)
			}
			code, stdout, stderr := runHdig(t, "sign", "--key", key, "--tag", "t", "--content-type", "text/plain", file)
			if code != 0 {
				t.Fatalf("sign: exit %d: %s", code, stderr)
			}
			h := http.Header{}
			sc := bufio.NewScanner(strings.NewReader(stdout))
			for sc.Scan() {
				k, v, _ := strings.Cut(sc.Text(), ": ")
				h.Set(k, v)
			}
			if want := "sha-256=:LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=:"; h.Get("Repr-Digest") != want {
				t.Fatalf("Repr-Digest %q, want %q", h.Get("Repr-Digest"), want)
			}
			pubFile := key + ".pub"
			if alg == httpsig.HMACSHA256 {
				pubFile = key
			}
			b, err := os.ReadFile(pubFile)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := httpsig.LoadVerifyingKey(b)
			if err != nil {
				t.Fatal(err)
			}
			v, err := httpsig.NewVerifier(alg, pub)
			if err != nil {
				t.Fatal(err)
			}
			m := httpsig.ResponseMessage(&http.Response{StatusCode: 200, Header: h}, nil)
			pol := httpsig.Policy{Keys: []httpsig.Key{{ID: "origin", Verifier: v}}, Require: []string{"repr-digest", "content-type"}, Tag: "t"}
			if _, err := httpsig.Verify(m, pol); err != nil {
				t.Fatalf("verify %q: %v", stdout, err)
			}
			h.Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
			if _, err := httpsig.Verify(m, pol); err == nil {
				t.Fatal("verified with another digest")
			}
		})
	}
}

// TestSignUsageErrors: missing key, RSA without --alg, an existing key
// file, a private key on stdout: exit 2 with a message.
func TestSignUsageErrors(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k.pem")
	if code, _, stderr := runHdig(t, "keygen", "-a", httpsig.RSAPSSSHA512, "-o", key); code != 0 {
		t.Fatalf("keygen: %d %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sign", key}, "--key"},
		{[]string{"sign", "--key", key, key}, "an RSA key needs --alg " + httpsig.RSAPSSSHA512},
		{[]string{"serve", t.TempDir(), "--addr", "127.0.0.1:0", "--sign-key", key}, "an RSA key needs --sign-alg " + httpsig.RSAPSSSHA512},
		{[]string{"sign", "--key", filepath.Join(dir, "none"), key}, "no such file"},
		{[]string{"keygen", "-o", key}, "exists"},
		{[]string{"keygen", "-o", "-"}, "stdout"},
		{[]string{"keygen", "-a", "rsa", "-o", filepath.Join(dir, "x")}, "unknown algorithm"},
	} {
		code, _, stderr := runHdig(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.msg)
		}
	}
}

// TestKeygenForceKeepsKeyPrivate: keygen --force onto an existing KEY that
// others can read (or a symbolic link to one) leaves a private key readable
// by its owner alone, and writes through no link.
func TestKeygenForceKeepsKeyPrivate(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k.pem")
	if err := os.WriteFile(key, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("theirs"), 0o666); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "l.pem")
	if err := os.Symlink(other, linked); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{key, linked} {
		if code, _, stderr := runHdig(t, "keygen", "--force", "-a", httpsig.HMACSHA256, "-o", k); code != 0 {
			t.Fatalf("keygen %s: %d %s", k, code, stderr)
		}
		fi, err := os.Lstat(k)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v after keygen --force, want a regular file others cannot read", k, fi.Mode())
		}
	}
	if b, _ := os.ReadFile(other); string(b) != "theirs" {
		t.Errorf("keygen --force wrote the key through a symbolic link into %s", other)
	}
}

// TestKeygenExistingPubWritesNoKey: keygen without --force where KEY.pub
// exists (KEY does not) refuses before writing KEY: no new private key is
// left beside a public key of another.
func TestKeygenExistingPubWritesNoKey(t *testing.T) {
	key := filepath.Join(t.TempDir(), "k.pem")
	if err := os.WriteFile(key+".pub", []byte("old public key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runHdig(t, "keygen", "-o", key); code != ExitUsage {
		t.Errorf("keygen with KEY.pub present: exit %d, want 2", code)
	}
	if _, err := os.Lstat(key); err == nil {
		t.Errorf("keygen wrote %s beside another key's %s.pub", key, key)
	}
}
