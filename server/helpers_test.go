package server

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const hello = "{\"hello\": \"world\"}\n"

// Values of RFC 9530 Appendix B (rfc-notes §2.2–2.4).
const (
	helloRepr   = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:"
	emptySHA    = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
	rangeB3     = "sha-256=:jjcgBDWNAtbYUXI37CVG3gRuGOAjaaDRGpIUFsdyepQ=:"
	helloSHA512 = "sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:"
	secret      = "TOP-SECRET-CONTENT"
)

// text is a compressible file of about 60 KiB.
var text = strings.Repeat("All work and no play makes Jack a dull boy.\n", 1400)

// binData is 1 MiB of deterministic pseudo-random bytes.
var binData = func() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}()

// fixture builds a served directory beside a file outside it:
//
//	outside.txt            (not served)
//	root/hello.json        RFC 9530's example body
//	root/text.txt          compressible
//	root/data.bin          1 MiB binary
//	root/.secret           dotfile
//	root/sub/a.txt, root/sub/.env
//	root/link-in  -> hello.json     root/link-out -> ../outside.txt
//	root/link-dot -> .secret        root/link-abs -> /…/outside.txt
func fixture(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	files := map[string]string{
		"outside.txt": secret, "root/hello.json": hello, "root/text.txt": text,
		"root/data.bin": string(binData), "root/.secret": secret,
		"root/sub/a.txt": "a\n", "root/sub/.env": secret,
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	must(t, os.Symlink("hello.json", filepath.Join(root, "link-in")))
	must(t, os.Symlink("../outside.txt", filepath.Join(root, "link-out")))
	must(t, os.Symlink(".secret", filepath.Join(root, "link-dot")))
	must(t, os.Symlink(filepath.Join(base, "outside.txt"), filepath.Join(root, "link-abs")))
	return root
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// start serves dir with opts on loopback.
func start(t testing.TB, dir string, opts ...Option) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(dir, opts...)
	must(t, err)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts
}

// rawResponse is a response read off a raw connection.
type rawResponse struct {
	*http.Response
	body    []byte
	bodyErr error
	raw     []byte
}

// raw sends hand-written request bytes (head lines without the final blank
// line are completed with Host and Connection: close) and parses what comes
// back.
func raw(t testing.TB, ts *httptest.Server, method, target string, headers ...string) *rawResponse {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, ts.Listener.Addr())
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	return rawBytes(t, ts, method, []byte(b.String()))
}

// rawBytes sends req verbatim. It sets no deadline: a server that never
// answers is reported by go test's -timeout, not by a wall clock.
func rawBytes(t testing.TB, ts *httptest.Server, method string, req []byte) *rawResponse {
	t.Helper()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	must(t, err)
	defer conn.Close()
	_, err = conn.Write(req)
	must(t, err)
	var all bytes.Buffer
	resp, err := http.ReadResponse(bufio.NewReader(io.TeeReader(conn, &all)), &http.Request{Method: method})
	must(t, err)
	body, berr := io.ReadAll(resp.Body)
	return &rawResponse{Response: resp, body: body, bodyErr: berr, raw: all.Bytes()}
}

// sfSHA256 formats the sha-256 of b as an Integrity field value.
func sfSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"
}

func wantStatus(t testing.TB, r *rawResponse, code int) {
	t.Helper()
	if r.StatusCode != code {
		t.Fatalf("status = %d, want %d\n%s", r.StatusCode, code, r.raw)
	}
}

func wantHeader(t testing.TB, r *rawResponse, name, want string) {
	t.Helper()
	if got := r.Header.Get(name); got != want {
		t.Errorf("%s = %q, want %q", name, got, want)
	}
}
