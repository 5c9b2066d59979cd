package browsertest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/hdig/hdig/internal/browsertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.CloseShared()
	os.Exit(code)
}

// blankPage answers every GET with an empty HTML page: a document on the
// test's origin for scripts to run in.
var blankPage = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("<!doctype html><title>hdig</title>"))
})

// localhostURL is srv's URL with the host named localhost: a secure
// context for crypto.subtle, and a different origin from 127.0.0.1.
func localhostURL(srv *httptest.Server) string {
	return strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
}

// The harness runs a page's script and returns its value: the page's own
// SHA-256 of a text, by crypto.subtle, equals Go's.
func TestEvalSubtleDigest(t *testing.T) {
	b := browsertest.Shared(t)
	ctx := browsertest.Context(t)
	srv := httptest.NewServer(blankPage)
	defer srv.Close()
	p := browsertest.NewPage(t, ctx, b)
	if err := p.Navigate(ctx, localhostURL(srv)+"/"); err != nil {
		t.Fatal(err)
	}
	var got string
	err := p.Eval(ctx, `(async () => {
		const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode("hdig"));
		return btoa(String.fromCharCode(...new Uint8Array(d)));
	})()`, &got)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("hdig"))
	if want := base64.StdEncoding.EncodeToString(sum[:]); got != want {
		t.Fatalf("page's sha-256 of %q: want %s, got %s", "hdig", want, got)
	}
	if err := p.Eval(ctx, `Promise.reject(new Error("boom"))`, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("a rejected promise: want an error naming it, got %v", err)
	}
	t.Logf("%s", b.Version())
}
