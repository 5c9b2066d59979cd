package httpsig

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const vectors = "testdata/rfc9421"

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectors, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readRequest(t *testing.T, name string) *http.Request {
	t.Helper()
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(readFile(t, "msg/"+name+".http"))))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func readResponse(t *testing.T, name string, req *http.Request) *http.Response {
	t.Helper()
	r, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(readFile(t, "msg/"+name+".http"))), req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// message reads msg as a request, or as a response to the request reqMsg
// when the file starts with "HTTP/".
func message(t *testing.T, msg, reqMsg string) Message {
	t.Helper()
	if strings.HasPrefix(string(readFile(t, "msg/"+msg+".http")), "HTTP/") {
		var req *http.Request
		if reqMsg != "" {
			req = readRequest(t, reqMsg)
		}
		return ResponseMessage(readResponse(t, msg, req), req)
	}
	return RequestMessage(readRequest(t, msg))
}

// testKeyAlgs are the algorithms the RFC's examples use with each key.
var testKeyAlgs = map[string]string{
	"test-key-rsa":       RSAV15SHA256,
	"test-key-rsa-pss":   RSAPSSSHA512,
	"test-key-ecc-p256":  ECDSAP256SHA256,
	"test-key-ed25519":   Ed25519,
	"test-shared-secret": HMACSHA256,
}

func testSecret(t *testing.T) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(readFile(t, "keys/test-shared-secret.b64"))))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testVerifier(t *testing.T, id string) Verifier {
	t.Helper()
	var pub any = testSecret(t)
	if id != "test-shared-secret" {
		var err error
		if pub, err = ParsePublicKey(readFile(t, "keys/"+id+".pub.pem")); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	v, err := NewVerifier(testKeyAlgs[id], pub)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return v
}

func testSigner(t *testing.T, id string) Signer {
	t.Helper()
	var priv any = testSecret(t)
	if id != "test-shared-secret" {
		var err error
		if priv, err = ParsePrivateKey(readFile(t, "keys/"+id+".pem")); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	s, err := NewSigner(testKeyAlgs[id], priv)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return s
}

// testKeys are all the RFC's keys under their identifiers.
func testKeys(t *testing.T) []Key {
	t.Helper()
	var ks []Key
	for id := range testKeyAlgs {
		ks = append(ks, Key{ID: id, Verifier: testVerifier(t, id)})
	}
	return ks
}
