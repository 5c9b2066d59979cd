package cmd

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// -o /dev/stdout (here /proc/self/fd/N, the test's own stdout) with stdout
// a file: opening the link again gave a second file position, so -w's text,
// written through stdout at its start, overwrote the verified body's first
// bytes (exit 0). The link names stdout itself: the body goes through it,
// as without -o, and -w's text follows it.
func TestOutputLinkToOwnStdout(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("BODYBODYBODY-verified-content\n"))
	}))
	defer srv.Close()
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var errOut bytes.Buffer
	ios := &IOStreams{In: &bytes.Buffer{}, Out: out, ErrOut: &errOut}
	link := fmt.Sprintf("/proc/self/fd/%d", out.Fd())
	if code := Run(context.Background(), ios, []string{"get", "-s", "--no-cache", "-o", link, "-w", "%{http_code}\n", srv.URL + "/f"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if got, _ := os.ReadFile(out.Name()); string(got) != "BODYBODYBODY-verified-content\n200\n" {
		t.Errorf("stdout holds %q, want the body then -w's text", got)
	}
}
