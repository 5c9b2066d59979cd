package fetch

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/verify"
)

// A version pair like two releases of a script: v2 shares most of v1.
var (
	dictV1 = []byte(strings.Repeat("export function add(a, b) { return a + b; } // v1\n", 200))
	dictV2 = []byte(strings.Repeat("export function add(a, b) { return a + b; } // v2\n", 210))
)

type dictEnv struct {
	o     *dictOrigin
	c     *Client
	store *cache.Cache
	now   time.Time // the clock dictionaries' freshness is judged by
}

func newDictEnv(t *testing.T, coding string) *dictEnv {
	o := newDictOrigin(t, coding)
	o.set("/app/v1.js", dictV1)
	o.set("/app/v2.js", dictV2)
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	store.Warnf = t.Logf
	c, _ := NewClient(Options{Timeout: testStall})
	return &dictEnv{o: o, c: c, store: store, now: time.Now()}
}

// get fetches path into a held sink; mod adjusts the request.
func (e *dictEnv) get(t *testing.T, url string, mod func(*Request)) (*Result, []byte, error) {
	t.Helper()
	var out bytes.Buffer
	if !strings.HasPrefix(url, "http") {
		url = e.o.srv.URL + url
	}
	req := &Request{URL: url, Policy: verify.DefaultPolicy(),
		Delta: &Delta{Cache: e.store, Now: func() time.Time { return e.now }}}
	if mod != nil {
		mod(req)
	}
	res, err := e.c.Get(context.Background(), req, &HeldSink{Out: &out})
	return res, out.Bytes(), err
}

// last is the request headers the origin saw last.
func (e *dictEnv) last() http.Header {
	rs := e.o.requests()
	return rs[len(rs)-1]
}

func availableOf(data []byte) string {
	return dictionary.FormatAvailableDictionary(dictionary.HashOf(data))
}

func warnings(res *Result) string {
	if res == nil {
		return ""
	}
	return strings.Join(res.Verdict.Warnings, "\n")
}

// The first GET stores the response as a dictionary; the second GET of a
// URL its pattern matches offers it (Available-Dictionary, Dictionary-ID,
// Accept-Encoding dcb, dcz), decodes the dcb or dcz answer, verifies
// Repr-Digest over the encoded bytes and Unencoded-Digest over the
// decoded ones, and stores v2 in turn, which then is the best match.
func TestDictionaryRoundTrip(t *testing.T) {
	for _, coding := range []string{dictionary.CodingDCB, dictionary.CodingDCZ} {
		t.Run(coding, func(t *testing.T) {
			e := newDictEnv(t, coding)
			res, out, err := e.get(t, "/app/v1.js", nil)
			if err != nil || !bytes.Equal(out, dictV1) || res.Strategy != StrategyFull {
				t.Fatalf("v1: %v, %d bytes, strategy %s", err, len(out), res.Strategy)
			}
			if h := e.last(); h.Get("Available-Dictionary") != "" || strings.Contains(h.Get("Accept-Encoding"), "dcb") {
				t.Errorf("v1 request offered a dictionary with none stored: %v", h)
			}
			ds := e.store.Dicts()
			if len(ds) != 1 || ds[0].Match != "/app/*" || ds[0].ID != "/app/v1.js" || ds[0].Origin != e.o.srv.URL ||
				time.Until(ds[0].Expires) > time.Hour || time.Until(ds[0].Expires) < 50*time.Minute {
				t.Fatalf("stored %+v; want one, /app/*, id /app/v1.js, origin %s, fresh for an hour", ds, e.o.srv.URL)
			}
			res, out, err = e.get(t, "/app/v2.js", nil)
			if err != nil || !bytes.Equal(out, dictV2) {
				t.Fatalf("v2: %v, %d bytes (warnings %q)", err, len(out), warnings(res))
			}
			h := e.last()
			if h.Get("Available-Dictionary") != availableOf(dictV1) || h.Get("Dictionary-ID") != `"/app/v1.js"` || h.Get("Accept-Encoding") != "dcb, dcz" {
				t.Errorf("v2 request: Available-Dictionary %q, Dictionary-ID %q, Accept-Encoding %q; want v1's hash, its id, dcb, dcz",
					h.Get("Available-Dictionary"), h.Get("Dictionary-ID"), h.Get("Accept-Encoding"))
			}
			if res.Strategy != StrategyDictionary || res.Dictionary == nil || res.Dictionary.Coding != coding ||
				res.Received >= res.Bytes/4 || res.Bytes != int64(len(dictV2)) {
				t.Errorf("strategy %s, dictionary %+v, %d received for %d bytes; want %s, a fraction", res.Strategy, res.Dictionary, res.Received, res.Bytes, coding)
			}
			if res.Outcome() != verify.Verified || !res.Verdict.Verified(verify.ReprDigest) || !res.Verdict.Verified(verify.UnencodedDigest) {
				t.Errorf("outcome %s, checks %v; want Repr-Digest and Unencoded-Digest verified", res.Outcome(), res.Verdict.Checks)
			}
			e.o.set("/app/v3.js", dictV1)
			if _, _, err := e.get(t, "/app/v3.js", nil); err != nil || e.last().Get("Available-Dictionary") != availableOf(dictV2) {
				t.Errorf("v3: %v, offered %q; want v2's decoded bytes, the most recent of equal matches", err, e.last().Get("Available-Dictionary"))
			}
		})
	}
}

// With --compressed the dictionary codings come after the usual ones; a
// server that ignores the dictionary is fine: a plain 200, no warning.
func TestDictionaryCompressedAndIgnored(t *testing.T) {
	e := newDictEnv(t, "")
	if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
		t.Fatal(err)
	}
	res, out, err := e.get(t, "/app/v2.js", func(r *Request) { r.Compressed = true })
	if err != nil || !bytes.Equal(out, dictV2) || res.Strategy != StrategyFull || warnings(res) != "" {
		t.Fatalf("ignored dictionary: %v, %d bytes, strategy %s, warnings %q", err, len(out), res.Strategy, warnings(res))
	}
	if ae := e.last().Get("Accept-Encoding"); ae != AcceptEncoding+", dcb, dcz" {
		t.Errorf("Accept-Encoding %q; want %q", ae, AcceptEncoding+", dcb, dcz")
	}
}

// Failures: a header naming another dictionary, or an Unencoded-Digest
// that the decoded bytes fail, fall back to a plain GET and say so; a
// body whose encoded bytes fail Repr-Digest falls back too, but stays a
// mismatch: nothing is released.
func TestDictionaryFailures(t *testing.T) {
	for _, tc := range []struct {
		name, coding, fault string
		badUnenc            bool
		mismatch            bool
		say                 string
	}{
		{"wrong header hash dcb", "dcb", "header", false, false, "dictionary hash mismatch"},
		{"wrong header hash dcz", "dcz", "header", false, false, "dictionary hash mismatch"},
		{"corrupt dcb", "dcb", "corrupt", false, true, "Repr-Digest sha-256 mismatch"},
		{"corrupt dcz", "dcz", "corrupt", false, true, "Repr-Digest sha-256 mismatch"},
		{"Unencoded-Digest fails", "dcz", "", true, false, "Unencoded-Digest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newDictEnv(t, tc.coding)
			if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
				t.Fatal(err)
			}
			e.o.fault, e.o.badUnenc = tc.fault, tc.badUnenc
			before := len(e.o.requests())
			res, out, err := e.get(t, "/app/v2.js", nil)
			rs := e.o.requests()[before:]
			if len(rs) != 2 || rs[0].Get("Available-Dictionary") == "" || rs[1].Get("Available-Dictionary") != "" || rs[1].Get("Accept-Encoding") != "" {
				t.Fatalf("%d requests; want the dictionary one, then a plain GET", len(rs))
			}
			w := warnings(res)
			if !strings.Contains(w, tc.say) || !strings.Contains(w, "fetched in full instead") || !strings.Contains(w, "the "+tc.coding+" response") {
				t.Errorf("warnings %q; want %q and the plain GET said", w, tc.say)
			}
			if tc.mismatch {
				if !errors.Is(err, ErrMismatch) || len(out) != 0 || res.Outcome() != verify.Mismatched {
					t.Errorf("corrupt encoded bytes: err %v, %d bytes out, outcome %s; want a mismatch, nothing out", err, len(out), res.Outcome())
				}
				return
			}
			if err != nil || !bytes.Equal(out, dictV2) || res.Strategy != StrategyFull || res.Outcome() != verify.Verified {
				t.Errorf("after the fallback: %v, %d bytes, strategy %s, outcome %s", err, len(out), res.Strategy, res.Outcome())
			}
		})
	}
}

// Not offered: an expired dictionary, a URL the pattern does not match,
// another origin; not stored: a pattern naming another origin, a response
// without freshness, a type other than raw.
func TestDictionaryNotOffered(t *testing.T) {
	e := newDictEnv(t, "dcb")
	other := newDictOrigin(t, "dcb")
	other.set("/app/v2.js", dictV2)
	e.o.set("/lib/x.js", dictV2)
	if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, url string
		later     time.Duration
	}{
		{"expired", "/app/v2.js", 2 * time.Hour},
		{"pattern does not match", "/lib/x.js", 0},
		{"another origin", other.srv.URL + "/app/v2.js", 0},
	} {
		e.now = time.Now().Add(tc.later)
		res, out, err := e.get(t, tc.url, nil)
		h := e.last()
		if tc.name == "another origin" {
			rs := other.requests()
			h = rs[len(rs)-1]
		}
		if err != nil || !bytes.Equal(out, dictV2) || res.Strategy != StrategyFull || h.Get("Available-Dictionary") != "" || h.Get("Accept-Encoding") != "" {
			t.Errorf("%s: %v, strategy %s, Available-Dictionary %q, Accept-Encoding %q; want a plain GET",
				tc.name, err, res.Strategy, h.Get("Available-Dictionary"), h.Get("Accept-Encoding"))
		}
	}
	e.now = time.Now()
	for _, tc := range []struct {
		name, useAs, cc, say string
	}{
		{"cross-origin pattern", `match="http://example.org/*"`, "max-age=60", "another origin"},
		{"another port", fmt.Sprintf(`match="%s/*"`, other.srv.URL), "max-age=60", "another origin"},
		{"not fresh", `match="/new/*"`, "", "not fresh"},
		{"no-store", `match="/new/*"`, "no-store, max-age=60", "not fresh"},
		{"type", `match="/new/*", type=zstd`, "max-age=60", "not understood"},
		{"regexp group", `match="/new/(a|b)"`, "max-age=60", "regexp"},
	} {
		e.o.set("/new/a", []byte(tc.name))
		e.o.useAs["/new/a"], e.o.cc = tc.useAs, tc.cc
		before := len(e.store.Dicts())
		res, _, err := e.get(t, "/new/a", nil)
		if err != nil || len(e.store.Dicts()) != before || !strings.Contains(warnings(res), tc.say) {
			t.Errorf("%s: %v, %d dictionaries (was %d), warnings %q; want none stored, %q said", tc.name, err, len(e.store.Dicts()), before, warnings(res), tc.say)
		}
	}
}

// The store stays bounded: four dictionaries offered, two kept.
func TestDictionaryStoreBounded(t *testing.T) {
	e := newDictEnv(t, "dcb")
	e.store.DictMaxCount = 2
	for i := range 4 {
		p := fmt.Sprintf("/app/f%d.js", i)
		e.o.set(p, []byte(p))
		if _, _, err := e.get(t, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	ds := e.store.Dicts()
	if len(ds) != 2 || ds[0].ID != "/app/f3.js" || ds[1].ID != "/app/f2.js" {
		t.Errorf("kept %d dictionaries %+v; want the last two", len(ds), ds)
	}
}

// --no-dictionary (Delta.NoDictionary) offers none but still stores; a
// request with its own Accept-Encoding offers none.
func TestDictionaryOptOut(t *testing.T) {
	e := newDictEnv(t, "dcb")
	if _, _, err := e.get(t, "/app/v1.js", func(r *Request) { r.Delta.NoDictionary = true }); err != nil || len(e.store.Dicts()) != 1 {
		t.Fatalf("%v, %d stored", err, len(e.store.Dicts()))
	}
	for name, mod := range map[string]func(*Request){
		"no-dictionary":   func(r *Request) { r.Delta.NoDictionary = true },
		"Accept-Encoding": func(r *Request) { r.Header = http.Header{"Accept-Encoding": {"identity"}} },
	} {
		res, _, err := e.get(t, "/app/v2.js", mod)
		if err != nil || res.Strategy != StrategyFull || e.last().Get("Available-Dictionary") != "" {
			t.Errorf("%s: %v, strategy %s, Available-Dictionary %q", name, err, res.Strategy, e.last().Get("Available-Dictionary"))
		}
	}
}

// --expect covers the decoded bytes of a dcb/dcz body: the right digest
// verifies with strategy dictionary; a wrong one is a mismatch after the
// plain GET too (exit 1, nothing out).
func TestDictionaryExpect(t *testing.T) {
	e := newDictEnv(t, "dcz")
	if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
		t.Fatal(err)
	}
	res, out, err := e.get(t, "/app/v2.js", func(r *Request) { r.Expected = []verify.DigestField{expectField(dictV2, false)} })
	if err != nil || !bytes.Equal(out, dictV2) || res.Strategy != StrategyDictionary || expectedCheck(t, res.Verdict).Result != verify.Match {
		t.Fatalf("right --expect: %v, strategy %s, checks %v", err, res.Strategy, res.Verdict.Checks)
	}
	res, out, err = e.get(t, "/app/v2.js", func(r *Request) { r.Expected = []verify.DigestField{expectField(dictV2, true)} })
	if !errors.Is(err, ErrMismatch) || len(out) != 0 || !strings.Contains(warnings(res), "fetched in full instead") {
		t.Errorf("wrong --expect: %v, %d bytes out, warnings %q; want a mismatch after the plain GET", err, len(out), warnings(res))
	}
}

// A dcz body over --max-filesize is refused (exit 4), not decoded on.
func TestDictionaryMaxFileSize(t *testing.T) {
	e := newDictEnv(t, "dcz")
	if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
		t.Fatal(err)
	}
	_, out, err := e.get(t, "/app/v2.js", func(r *Request) { r.Limits.MaxFileSize = int64(len(dictV2) - 1) })
	if !errors.Is(err, ErrTooLarge) || len(out) != 0 {
		t.Errorf("over --max-filesize: %v, %d bytes out; want ErrTooLarge, nothing", err, len(out))
	}
}

// A redirect to another origin carries neither Available-Dictionary nor
// Dictionary-ID: RFC 9842 §10 has dictionaries treated as cookies are.
func TestDictionaryNotAcrossRedirect(t *testing.T) {
	e := newDictEnv(t, "dcb")
	other := newDictOrigin(t, "dcb")
	other.set("/app/v2.js", dictV2)
	if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
		t.Fatal(err)
	}
	e.o.useAs["/app/moved.js"] = "-"
	e.o.set("/app/moved.js", nil)
	mux := http.NewServeMux()
	mux.Handle("/app/moved.js", http.RedirectHandler(other.srv.URL+"/app/v2.js", http.StatusFound))
	mux.Handle("/", http.HandlerFunc(e.o.serve))
	e.o.srv.Config.Handler = mux
	e.c, _ = NewClient(Options{Timeout: testStall, FollowRedirects: true})
	res, out, err := e.get(t, "/app/moved.js", nil)
	rs := other.requests()
	if err != nil || !bytes.Equal(out, dictV2) || len(rs) != 1 {
		t.Fatalf("%v, %d bytes, %d requests at the other origin", err, len(out), len(rs))
	}
	if h := rs[0]; h.Get("Available-Dictionary") != "" || h.Get("Dictionary-ID") != "" {
		t.Errorf("the other origin got Available-Dictionary %q, Dictionary-ID %q; want neither (strategy %s)", h.Get("Available-Dictionary"), h.Get("Dictionary-ID"), res.Strategy)
	}
}

// RFC 9842 §8: secure contexts only; loopback hosts count, as in browsers.
func TestDictionarySecureContext(t *testing.T) {
	for raw, want := range map[string]bool{
		"https://example.org/a": true, "http://example.org/a": false, "http://127.0.0.1:8080/a": true,
		"http://127.9.9.9/a": true, "http://[::1]:80/a": true, "http://localhost/a": true, "http://app.localhost./a": true,
		"http://10.0.0.1/a": false, "ftp://localhost/a": false, "http://localhost.example.org/a": false,
	} {
		u, _ := url.Parse(raw)
		if got := secureContext(u); got != want {
			t.Errorf("%s: secure %v, want %v", raw, got, want)
		}
	}
	res := &Result{URL: "http://example.org/app/v1.js", Status: http.StatusOK, SHA256: make([]byte, 32),
		Header: http.Header{"Use-As-Dictionary": {`match="/app/*"`}, "Cache-Control": {"max-age=60"}}}
	if _, _, note, ok := dictEntry(res, time.Now()); ok || !strings.Contains(note, "secure context") {
		t.Errorf("http://example.org: stored %v, note %q; want refused as not a secure context", ok, note)
	}
	res.URL = "https://example.org/app/v1.js"
	if d, _, note, ok := dictEntry(res, time.Now()); !ok || d.Origin != "https://example.org" || note != "" {
		t.Errorf("https://example.org: stored %v (%+v), note %q", ok, d, note)
	}
}

// A connection that ends inside the dcb header is a network failure
// (exit 4, retried with --retry), not a dictionary that did not work.
func TestDictionaryTruncatedHeader(t *testing.T) {
	e := newDictEnv(t, "dcb")
	if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
		t.Fatal(err)
	}
	e.o.fault = "truncate"
	before := len(e.o.requests())
	_, out, err := e.get(t, "/app/v2.js", nil)
	if !errors.Is(err, ErrNetwork) || len(out) != 0 || len(e.o.requests())-before != 1 {
		t.Errorf("%v, %d bytes out, %d requests; want a network error, nothing out, no plain GET", err, len(out), len(e.o.requests())-before)
	}
}

// A redirect to another origin that answers dcb or dcz against the
// dictionary offered to the first origin is not decoded with it: the
// dictionary is the first origin's (RFC 9842 §2.2.2, §10), and the other
// origin was offered none. Decoding it would splice the first origin's
// bytes into the other's answer and tell the other origin which
// dictionary the client holds.
func TestDictionaryNotDecodedAcrossRedirect(t *testing.T) {
	for _, coding := range []string{dictionary.CodingDCB, dictionary.CodingDCZ} {
		t.Run(coding, func(t *testing.T) { redirectedDictAnswer(t, coding, false) })
	}
}

// redirectedDictAnswer gets /app/moved.js after /app/v1.js was stored as
// a dictionary for /app/*; it redirects to another origin's /x.js, or
// (sameOrigin) to this origin's /other/x.js, outside the match. Whatever
// answers there sends coding against that dictionary unasked. It fails t
// when that answer is decoded with the dictionary or when the request
// there offered it (Available-Dictionary, dcb or dcz).
func redirectedDictAnswer(t *testing.T, coding string, sameOrigin bool) {
	e := newDictEnv(t, coding)
	if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
		t.Fatal(err)
	}
	var seen []http.Header
	var mu sync.Mutex
	answer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		enc, err := dictionary.Encode(coding, dictV2, dictV1) // the hash of a guessed dictionary
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Encoding", coding)
		w.Header().Set("Repr-Digest", reprOf(enc))
		w.Write(enc)
	})
	mux := http.NewServeMux()
	if sameOrigin {
		mux.Handle("/other/x.js", answer)
		mux.Handle("/app/moved.js", http.RedirectHandler("/other/x.js", http.StatusFound))
	} else {
		other := httptest.NewServer(answer)
		t.Cleanup(other.Close)
		mux.Handle("/app/moved.js", http.RedirectHandler(other.URL+"/x.js", http.StatusFound))
	}
	mux.Handle("/", http.HandlerFunc(e.o.serve))
	e.o.srv.Config.Handler = mux
	e.c, _ = NewClient(Options{Timeout: testStall, FollowRedirects: true})
	res, out, _ := e.get(t, "/app/moved.js", nil)
	if bytes.Equal(out, dictV2) || res != nil && (res.Strategy == StrategyDictionary || res.Dictionary != nil) {
		t.Errorf("decoded the redirect target's %s answer with the dictionary of /app/* (strategy %s, %d bytes)", coding, res.Strategy, len(out))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the redirect was not followed")
	}
	for _, h := range seen {
		if ae := h.Get("Accept-Encoding"); h.Get("Available-Dictionary") != "" || strings.Contains(ae, "dcb") || strings.Contains(ae, "dcz") {
			t.Errorf("the redirect target was offered Available-Dictionary %q, Accept-Encoding %q: no dictionary applies there", h.Get("Available-Dictionary"), ae)
		}
	}
}

// A dcb or dcz body whose encoded bytes fail Repr-Digest stays a mismatch
// (exit 1) when the plain GET after it fails too: the mismatch hdig
// computed is not turned into a protocol or network error.
func TestDictionaryMismatchThenRefetchFails(t *testing.T) {
	for _, coding := range []string{dictionary.CodingDCB, dictionary.CodingDCZ} {
		t.Run(coding, func(t *testing.T) {
			e := newDictEnv(t, coding)
			if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
				t.Fatal(err)
			}
			e.o.fault = "corrupt"
			e.o.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Available-Dictionary") == "" {
					http.Error(w, "down", http.StatusServiceUnavailable)
					return
				}
				e.o.serve(w, r)
			})
			res, out, err := e.get(t, "/app/v2.js", nil)
			if !errors.Is(err, ErrMismatch) || len(out) != 0 || res == nil || res.Outcome() != verify.Mismatched {
				outcome := verify.Outcome("")
				if res != nil {
					outcome = res.Outcome()
				}
				t.Errorf("err %v, %d bytes out, outcome %q; want the encoded bytes' mismatch, nothing out", err, len(out), outcome)
			}
		})
	}
}

// An Unencoded-Digest in a trailer nobody declared (a chunked dcb
// answer) is checked over the decoded bytes in any accepted algorithm,
// as Repr-Digest in a trailer is: a wrong sha-512 is not "ignored, not
// computed" beside a verified body, it sends the run to the plain GET.
func TestDictionaryUndeclaredUnencodedTrailer(t *testing.T) {
	e := newDictEnv(t, "dcb")
	if _, _, err := e.get(t, "/app/v1.js", nil); err != nil {
		t.Fatal(err)
	}
	e.o.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.o.serve(w, r)
		if r.Header.Get("Available-Dictionary") != "" {
			w.(http.Flusher).Flush() // chunked: the trailer follows
			s := sha512.Sum512([]byte("not the bytes"))
			w.Header().Set(http.TrailerPrefix+"Unencoded-Digest", "sha-512=:"+base64.StdEncoding.EncodeToString(s[:])+":")
		}
	})
	res, out, err := e.get(t, "/app/v2.js", nil)
	if err != nil || !bytes.Equal(out, dictV2) {
		t.Fatalf("%v, %d bytes", err, len(out))
	}
	for _, c := range res.Verdict.Checks {
		if c.Field == verify.UnencodedDigest && c.Result == verify.Ignored {
			t.Errorf("Unencoded-Digest %s in the trailer ignored: %s", c.Algorithm, c.Reason)
		}
	}
	if res.Strategy == StrategyDictionary || !strings.Contains(warnings(res), "Unencoded-Digest") {
		t.Errorf("strategy %s, warnings %q; want the dcb answer refused for its Unencoded-Digest, the plain GET used", res.Strategy, warnings(res))
	}
}

// A dictionary is offered only to the URLs its match pattern covers (RFC
// 9842 §2.2.2), after a redirect too: a same-origin redirect from
// /app/moved.js to /other/x.js is sent without Available-Dictionary or
// dcb/dcz, and a dictionary-coded answer from there is not decoded with
// it.
func TestDictionaryNotOfferedOutsideMatchAfterRedirect(t *testing.T) {
	for _, coding := range []string{dictionary.CodingDCB, dictionary.CodingDCZ} {
		t.Run(coding, func(t *testing.T) { redirectedDictAnswer(t, coding, true) })
	}
}

// --max-ratio bounds the decoded output per byte received: the stored
// dictionary may be copied into it once, not --max-ratio times. A few
// hundred bytes of dcz that repeat a 10 KB dictionary sixty-four times
// (650 KB) were allowed up to ratio × (received + dictionary), so a 64 MiB
// dictionary let any small response write 64 GiB at the default 1024:1.
// Such a body is stopped and fetched in full; a real new version (about
// the dictionary's size) still decodes.
func TestDictionaryRatioCountsDictionaryOnce(t *testing.T) {
	for _, coding := range []string{dictionary.CodingDCB, dictionary.CodingDCZ} {
		t.Run(coding, func(t *testing.T) {
			e := newDictEnv(t, coding)
			e.o.set("/app/bomb.js", bytes.Repeat(dictV1, 64))
			lim := func(r *Request) { r.Limits = Limits{MaxRatio: 100, Floor: 1} }
			if _, _, err := e.get(t, "/app/v1.js", lim); err != nil {
				t.Fatal(err)
			}
			e.o.useAs["/app/bomb.js"] = "-"
			res, out, err := e.get(t, "/app/bomb.js", lim)
			if err != nil || len(out) != 64*len(dictV1) || res.Strategy != StrategyFull ||
				!strings.Contains(warnings(res), "decompression bomb") || !strings.Contains(warnings(res), "fetched in full instead") {
				t.Fatalf("bomb: %v, %d bytes, strategy %s, warnings %q; want the %s body stopped at the ratio and fetched in full",
					err, len(out), res.Strategy, warnings(res), coding)
			}
			res, out, err = e.get(t, "/app/v2.js", lim)
			if err != nil || !bytes.Equal(out, dictV2) || res.Strategy != StrategyDictionary {
				t.Errorf("v2: %v, %d bytes, strategy %s, warnings %q; want it decoded with the dictionary", err, len(out), res.Strategy, warnings(res))
			}
		})
	}
}
