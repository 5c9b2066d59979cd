package browsertest_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/internal/browsertest"
	"github.com/hdig/hdig/server"
)

// corsScript runs in a page on another origin than base (hdig serve
// --cors --writable): it fetches data.bin, checks its Repr-Digest with
// crypto.subtle, then PUTs new.txt with correct digests and old.txt with a
// wrong Content-Digest. It returns what it saw.
const corsScript = `(async (base) => {
	const b64 = buf => btoa(String.fromCharCode(...new Uint8Array(buf)));
	const sf = async data => "sha-256=:" + b64(await crypto.subtle.digest("SHA-256", data)) + ":";
	const out = {};
	const r = await fetch(base + "/data.bin", {headers: {"Want-Content-Digest": "sha-256=10"}});
	const body = await r.arrayBuffer();
	out.status = r.status;
	out.reprDigest = r.headers.get("Repr-Digest");
	out.contentDigest = r.headers.get("Content-Digest");
	out.etag = r.headers.get("ETag");
	out.pageDigest = await sf(body);
	const text = new TextEncoder().encode("uploaded by a page on another origin\n");
	const good = await fetch(base + "/new.txt", {method: "PUT", body: text,
		headers: {"Content-Type": "text/plain", "Content-Digest": await sf(text), "Repr-Digest": await sf(text)}});
	out.goodPut = good.status;
	const bad = await fetch(base + "/old.txt", {method: "PUT", body: text,
		headers: {"Content-Type": "text/plain", "Content-Digest": await sf(new TextEncoder().encode("other bytes"))}});
	out.badPut = bad.status;
	out.badPutType = bad.headers.get("Content-Type");
	return out;
})`

type corsResult struct {
	Status        int    `json:"status"`
	ReprDigest    string `json:"reprDigest"`
	ContentDigest string `json:"contentDigest"`
	ETag          string `json:"etag"`
	PageDigest    string `json:"pageDigest"`
	GoodPut       int    `json:"goodPut"`
	BadPut        int    `json:"badPut"`
	BadPutType    string `json:"badPutType"`
}

func sfSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"
}

// A page on http://localhost:A reads and checks the digests of a file
// from hdig serve --cors on http://127.0.0.1:B, uploads a file with
// digests the server accepts, and one with a wrong digest it refuses.
func TestCORSDigestsInBrowser(t *testing.T) {
	b := browsertest.Shared(t)
	ctx := browsertest.Context(t)
	pages := httptest.NewServer(blankPage)
	defer pages.Close()
	pageOrigin := localhostURL(pages)

	data := make([]byte, 100<<10)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	const old = "the old content\n"
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "data.bin"), data, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "old.txt"), []byte(old), 0o644))
	s, err := server.New(dir, server.WithCORS([]string{pageOrigin}), server.WithWritable())
	must(t, err)
	defer s.Close()
	origin := httptest.NewServer(s.Handler())
	defer origin.Close()

	p := browsertest.NewPage(t, ctx, b)
	must(t, p.Navigate(ctx, pageOrigin+"/"))
	var got corsResult
	must(t, p.Eval(ctx, corsScript+"("+jsString(origin.URL)+")", &got))

	want := sfSHA256(data)
	if got.Status != 200 || got.ReprDigest != want || got.PageDigest != want {
		t.Errorf("GET data.bin: status %d, Repr-Digest the page read %q, page's own sha-256 %q; want 200 and both %q",
			got.Status, got.ReprDigest, got.PageDigest, want)
	}
	if got.ContentDigest != want || got.ETag == "" {
		t.Errorf("GET data.bin: Content-Digest %q, ETag %q; want %q and an ETag", got.ContentDigest, got.ETag, want)
	}
	if got.GoodPut != 201 {
		t.Errorf("PUT new.txt with correct digests: status %d, want 201", got.GoodPut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.txt")); err != nil || string(b) != "uploaded by a page on another origin\n" {
		t.Errorf("new.txt after the PUT: %q, %v", b, err)
	}
	if got.BadPut != 400 || !strings.HasPrefix(got.BadPutType, "application/problem+json") {
		t.Errorf("PUT old.txt with a wrong Content-Digest: status %d (%s), want 400 problem+json", got.BadPut, got.BadPutType)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "old.txt")); err != nil || !bytes.Equal(b, []byte(old)) {
		t.Errorf("old.txt after the refused PUT: %q, %v; want it unchanged, %q", b, err, old)
	}
}

// The same script on an origin not listed in --cors cannot read the
// response: fetch() rejects, and nothing is uploaded.
func TestCORSOtherOriginBlockedInBrowser(t *testing.T) {
	b := browsertest.Shared(t)
	ctx := browsertest.Context(t)
	pages := httptest.NewServer(blankPage)
	defer pages.Close()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "data.bin"), []byte("data"), 0o644))
	s, err := server.New(dir, server.WithCORS([]string{"http://localhost:1"}), server.WithWritable())
	must(t, err)
	defer s.Close()
	origin := httptest.NewServer(s.Handler())
	defer origin.Close()

	p := browsertest.NewPage(t, ctx, b)
	must(t, p.Navigate(ctx, localhostURL(pages)+"/"))
	err = p.Eval(ctx, corsScript+"("+jsString(origin.URL)+")", nil)
	if err == nil || !strings.Contains(err.Error(), "Failed to fetch") {
		t.Fatalf("a page on an origin not allowed: want fetch to fail (TypeError: Failed to fetch), got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("new.txt was written by a page whose origin is not allowed")
	}
}

// jsString quotes s as a JavaScript string literal (JSON, which Go
// escapes U+2028 and U+2029 in, is one).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
