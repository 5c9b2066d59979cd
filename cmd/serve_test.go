package cmd

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServeCmd starts hdig serve on a kernel-chosen port, reads the address
// from the first stdout line, fetches a file and stops it by cancelling the
// context, as SIGINT does.
func TestServeCmd(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.json"), []byte("{\"hello\": \"world\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, _, errOut := Test()
	pr, pw := io.Pipe()
	ios.Out = pw
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, ios, []string{"serve", dir, "--addr", "127.0.0.1:0", "--cors", "http://localhost:8000"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first line: %v", err)
	}
	m := regexp.MustCompile(`^serving (.+) at (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(line)
	if m == nil || m[1] != dir {
		t.Fatalf("first line = %q", line)
	}
	req, _ := http.NewRequest("GET", m[2]+"hello.json", nil)
	req.Header.Set("Accept-Encoding", "identity") // the identity representation's digest
	req.Header.Set("Origin", "http://localhost:8000")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Repr-Digest") != "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:" {
		t.Errorf("GET: %d, Repr-Digest %q", resp.StatusCode, resp.Header.Get("Repr-Digest"))
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "http://localhost:8000" {
		t.Errorf("--cors http://localhost:8000: Access-Control-Allow-Origin %q, want the origin", got)
	}
	cancel()
	// A serve that does not stop is reported by go test's -timeout.
	if code := <-done; code != ExitOK {
		t.Errorf("exit status %d, want 0; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "path=/hello.json status=200") {
		t.Errorf("no access log line on stderr:\n%s", errOut)
	}
}

func TestServeUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, args := range [][]string{
		{"serve"},
		{"serve", filepath.Join(t.TempDir(), "missing")},
		{"serve", file},
		{"serve", t.TempDir(), "--addr", "nonsense"},
		{"serve", t.TempDir(), "--max-upload", "lots"},
		{"serve", t.TempDir(), "--tls-cert", "c.pem"},
		{"serve", t.TempDir(), "--cors", "example.org"},
		{"serve", t.TempDir(), "--cors", "*,https://example.org"},
		{"serve", t.TempDir(), "--dictionary", "/assets/*", "--history", "0"},
		{"serve", t.TempDir(), "--dictionary", "/(a|b)/*"},
		{"serve", t.TempDir(), "--dictionary", "https://example.com/*"},
		{"serve", t.TempDir(), "--dictionary", ""},
	} {
		code, out, _ := runHdig(t, args...)
		if code != ExitUsage || out != "" {
			t.Errorf("hdig %s: exit %d, stdout %q; want 2 and nothing", strings.Join(args, " "), code, out)
		}
	}
}
