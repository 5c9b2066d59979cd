// Package servertest runs the reference origin of package server on a
// loopback httptest.Server for tests of clients, with the server's options,
// fault injection included.
package servertest

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/server"
)

// New serves dir on a loopback address for the duration of the test. The
// server and its directory handle are closed by t.Cleanup.
func New(t testing.TB, dir string, opts ...server.Option) *httptest.Server {
	t.Helper()
	s, err := server.New(dir, opts...)
	if err != nil {
		t.Fatalf("server.New(%q): %v", dir, err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return ts
}

// NewFiles writes files (slash-separated name → content) into a fresh
// temporary directory and serves it like New.
func NewFiles(t testing.TB, files map[string]string, opts ...server.Option) *httptest.Server {
	t.Helper()
	return New(t, WriteFiles(t, files), opts...)
}

// WriteFiles writes files into a fresh temporary directory, creating
// parent directories, and returns the directory.
func WriteFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Hello is the body of RFC 9530's examples, `{"hello": "world"}` and a
// line feed (19 bytes); served as a .json file it reproduces Appendix B.
const Hello = "{\"hello\": \"world\"}\n"

// HelloSHA256 is the Repr-Digest of Hello (RFC 9530 Appendix B.1).
const HelloSHA256 = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:"
