package browsertest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/internal/browsertest"
)

// Paths of the dictionary proof. The probe is under the dictionary's match
// but answered by the test, not the origin, so it never becomes a
// dictionary itself.
const (
	assetV1    = "/assets/app.v1.js"
	assetV2    = "/assets/app.v2.js"
	assetProbe = "/assets/app.probe.js"
	assetMatch = "/assets/app.*.js"
)

// fetchScript fetches a URL in the page and returns its status,
// Content-Encoding, the page's sha-256 of the decoded body, and the
// resource timing's encoded and decoded sizes.
const fetchScript = `(async (url, opts) => {
	const r = await fetch(url, opts || {});
	const buf = await r.arrayBuffer();
	const d = await crypto.subtle.digest("SHA-256", buf);
	const e = performance.getEntriesByName(new URL(url, location.href).href).pop() || {};
	return {status: r.status, encoding: r.headers.get("Content-Encoding") || "",
		digest: "sha-256=:" + btoa(String.fromCharCode(...new Uint8Array(d))) + ":",
		length: buf.byteLength, encodedSize: e.encodedBodySize || 0, decodedSize: e.decodedBodySize || 0};
})`

type fetched struct {
	Status      int    `json:"status"`
	Encoding    string `json:"encoding"`
	Digest      string `json:"digest"`
	Length      int    `json:"length"`
	EncodedSize int    `json:"encodedSize"`
	DecodedSize int    `json:"decodedSize"`
}

func pageFetch(ctx context.Context, p *browsertest.Page, url, opts string) (fetched, error) {
	var f fetched
	if opts == "" {
		opts = "{}"
	}
	err := p.Eval(ctx, fetchScript+"("+jsString(url)+", "+opts+")", &f)
	return f, err
}

// jsVersions returns two versions of a script of about 40 KiB: the second
// is the first with a few functions changed and one added.
func jsVersions() (v1, v2 []byte) {
	rng := rand.New(rand.NewPCG(5, 6))
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		b := make([]byte, 3+rng.IntN(8))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	var a, b strings.Builder
	for i := range 400 {
		fn := fmt.Sprintf("function %s_%d(%s, %s) {\n  return %s(%s) + %d * %s.%s;\n}\n",
			word(), i, word(), word(), word(), word(), rng.IntN(1000), word(), word())
		a.WriteString(fn)
		if i%97 == 13 {
			fn = strings.Replace(fn, "return", "return 1 + ", 1)
		}
		b.WriteString(fn)
		if i == 200 {
			b.WriteString("export const version = \"2.0.0\";\n")
		}
	}
	return []byte(a.String()), []byte(b.String())
}

// proveDictionary loads v1 of an asset from origin in Chromium, waits
// until Chromium offers it as a dictionary (Available-Dictionary on the
// probe), then loads v2 and checks that it came dictionary-compressed
// (coding, or dcb or dcz when coding is "") and that the page's own
// sha-256 of what it read is v2's. origin may be any handler serving
// assetV1 and assetV2 with Use-As-Dictionary covering assetMatch, e.g.
// hdig serve --dictionary '/assets/app.*.js' over a directory holding
// both files.
func proveDictionary(t *testing.T, origin http.Handler, v1, v2 []byte, coding string) {
	ctx := browsertest.Context(t)
	p, rec := dictionaryPage(t, ctx, origin)
	tries := loadDictionary(t, ctx, p, rec, v1)
	want := dictionary.FormatAvailableDictionary(dictionary.HashOf(v1))
	second, err := pageFetch(ctx, p, assetV2, "")
	must(t, err)
	ex, _ := rec.last(assetV2)
	if got := ex.Request.Get("Available-Dictionary"); got != want {
		t.Errorf("GET %s: Available-Dictionary %q, want %q (v1's sha-256)", assetV2, got, want)
	}
	enc := ex.Response.Get("Content-Encoding")
	if (coding != "" && enc != coding) || (coding == "" && enc != "dcb" && enc != "dcz") {
		t.Errorf("GET %s: Content-Encoding %q, want %s (Accept-Encoding was %q)", assetV2, enc, orDictCodings(coding), ex.Request.Get("Accept-Encoding"))
	}
	if second.Status != 200 || second.Digest != sfSHA256(v2) || second.Length != len(v2) {
		t.Errorf("GET %s: status %d, %d bytes, page's sha-256 %s; want 200, %d bytes, %s", assetV2,
			second.Status, second.Length, second.Digest, len(v2), sfSHA256(v2))
	}
	t.Logf("%s: v2 %d bytes, %d on the wire (%s; %.1f%%), dictionary offered after %d probes",
		enc, len(v2), ex.Bytes, second.Encoding, 100*float64(ex.Bytes)/float64(len(v2)), tries)
}

// dictionaryPage opens a page on http://localhost:PORT/ whose origin
// serves origin, recorded, and the probe.
func dictionaryPage(t *testing.T, ctx context.Context, origin http.Handler) (*browsertest.Page, *recorder) {
	b := browsertest.Shared(t)
	rec := &recorder{next: origin}
	mux := http.NewServeMux()
	mux.Handle("/", rec)
	mux.Handle("GET /{$}", blankPage)
	mux.Handle("GET "+assetProbe, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, exchange{Method: r.Method, Path: r.URL.Path, Request: r.Header.Clone(), Status: 200})
		rec.mu.Unlock()
		w.Header().Set("Cache-Control", "no-store")
		w.Write([]byte("// probe\n"))
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p := browsertest.NewPage(t, ctx, b)
	must(t, p.Navigate(ctx, localhostURL(srv)+"/"))
	return p, rec
}

// loadDictionary fetches v1 (assetV1) and waits until Chromium offers it
// as a dictionary; it returns the number of probes.
func loadDictionary(t *testing.T, ctx context.Context, p *browsertest.Page, rec *recorder, v1 []byte) int {
	t.Helper()
	first, err := pageFetch(ctx, p, assetV1, "")
	must(t, err)
	if first.Status != 200 || first.Digest != sfSHA256(v1) {
		t.Fatalf("GET %s: status %d, page's sha-256 %s; want 200 and %s", assetV1, first.Status, first.Digest, sfSHA256(v1))
	}
	return waitForDictionary(t, ctx, p, rec, dictionary.FormatAvailableDictionary(dictionary.HashOf(v1)))
}

func orDictCodings(c string) string {
	if c == "" {
		return "dcb or dcz"
	}
	return c
}

// maxProbes bounds waitForDictionary: a count of fetches, not a time.
const maxProbes = 600

// waitForDictionary fetches the probe until its request carries
// Available-Dictionary want: Chromium stores a dictionary shortly after
// the response that offered it, not before the fetch resolves. It returns
// the number of probes.
func waitForDictionary(t *testing.T, ctx context.Context, p *browsertest.Page, rec *recorder, want string) int {
	t.Helper()
	for i := 1; i <= maxProbes; i++ {
		if _, err := pageFetch(ctx, p, assetProbe, `{cache: "no-store"}`); err != nil {
			t.Fatal(err)
		}
		ex, _ := rec.last(assetProbe)
		if got := ex.Request.Get("Available-Dictionary"); got == want {
			return i
		} else if got != "" {
			t.Fatalf("GET %s: Available-Dictionary %q, want %q (v1's sha-256)", assetProbe, got, want)
		}
		must(t, p.Eval(ctx, `new Promise(r => setTimeout(r, 50))`, nil))
	}
	ex, _ := rec.last(assetProbe)
	t.Fatalf("Chromium never offered v1 as a dictionary in %d probes; last probe's request:\n%v", maxProbes, ex.Request)
	return 0
}

func TestDictionaryDCBInBrowser(t *testing.T) {
	v1, v2 := jsVersions()
	proveDictionary(t, newDictOrigin(map[string][]byte{assetV1: v1, assetV2: v2}, assetMatch, dictionary.CodingDCB), v1, v2, "dcb")
}

// Chromium checks Unencoded-Digest over the decoded bytes of a response,
// dcb included: a wrong one fails the fetch, so the proofs above also show
// that the origin's Unencoded-Digest was right.
func TestDictionaryWrongUnencodedDigestInBrowser(t *testing.T) {
	ctx := browsertest.Context(t)
	v1, v2 := jsVersions()
	o := newDictOrigin(map[string][]byte{assetV1: v1, assetV2: v2}, assetMatch, dictionary.CodingDCB)
	p, rec := dictionaryPage(t, ctx, o)
	loadDictionary(t, ctx, p, rec, v1)
	o.lie.Store(true)
	if f, err := pageFetch(ctx, p, assetV2, ""); err == nil || !strings.Contains(err.Error(), "Failed to fetch") {
		t.Errorf("GET %s (dcb) with a wrong Unencoded-Digest: want fetch to fail, got %+v, %v", assetV2, f, err)
	}
	if ex, _ := rec.last(assetV2); ex.Response.Get("Content-Encoding") != "dcb" {
		t.Errorf("GET %s: Content-Encoding %q, want dcb", assetV2, ex.Response.Get("Content-Encoding"))
	}
	if !strings.Contains(p.Log(), "unencoded-digest") {
		t.Errorf("page log: want Chromium's unencoded-digest message, got:\n%s", p.Log())
	}
}

func TestDictionaryDCZInBrowser(t *testing.T) {
	v1, v2 := jsVersions()
	proveDictionary(t, newDictOrigin(map[string][]byte{assetV1: v1, assetV2: v2}, assetMatch, dictionary.CodingDCZ), v1, v2, "dcz")
}
