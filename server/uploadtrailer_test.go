package server

import (
	"bytes"
	"fmt"

	"path/filepath"
	"strings"
	"testing"
)

// chunkedPut is a raw chunked PUT of body to /hello.json that declares
// the named fields in Trailer and sends trailer lines after the content.
func chunkedPut(body []byte, declare string, trailer ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "PUT /hello.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n")
	if declare != "" {
		fmt.Fprintf(&b, "Trailer: %s\r\n", declare)
	}
	fmt.Fprintf(&b, "\r\n%x\r\n%s\r\n0\r\n", len(body), body)
	for _, t := range trailer {
		fmt.Fprintf(&b, "%s\r\n", t)
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// A digest sent in the request's trailer (RFC 9530 §2, §3: chunked or
// HTTP/2, after the content) is checked as a header's is: a wrong one
// changes nothing (found by review: the trailer was never read, and the
// bytes were stored with 204). Declared in Trailer, its algorithm is
// computed whatever it is; undeclared, it is refused unless its algorithm
// was computed anyway, never let through unchecked.
func TestUploadTrailerDigestChecked(t *testing.T) {
	body := []byte(`{"hello": "tampered"}` + "\n")
	for _, tc := range []struct {
		name, declare, trailer string
		status                 int
		detail                 string // in the problem's body
	}{
		{"declared Content-Digest, wrong", "Content-Digest", "Content-Digest: " + helloRepr, 400, ""},
		{"declared Repr-Digest, wrong", "Repr-Digest", "Repr-Digest: " + helloRepr, 400, ""},
		{"declared sha-512, wrong", "Repr-Digest", "Repr-Digest: " + helloSHA512, 400, ""},
		{"declared sha-512, right", "Content-Digest", "Content-Digest: " + sfSHA512(body), 204, ""},
		{"undeclared sha-256 (computed to store), wrong", "", "Content-Digest: " + helloRepr, 400, ""},
		{"undeclared sha-256, right", "", "Content-Digest: " + sfSHA256(body), 204, ""},
		{"undeclared sha-512, not computed", "", "Content-Digest: " + sfSHA512(body), 400, "did not declare"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t)
			_, ts := start(t, dir, WithWritable())
			r := rawBytes(t, ts, "PUT", chunkedPut(body, tc.declare, tc.trailer))
			if r.StatusCode != tc.status {
				t.Errorf("status %d, want %d: %s", r.StatusCode, tc.status, r.body)
			}
			if !strings.Contains(string(r.body), tc.detail) {
				t.Errorf("problem %s, want it to say %q", r.body, tc.detail)
			}
			want := hello
			if tc.status == 204 {
				want = string(body)
			}
			if got := readFile(t, filepath.Join(dir, "hello.json")); got != want {
				t.Errorf("file now %q, want %q", got, want)
			}
			noTemps(t, dir)
		})
	}
}
