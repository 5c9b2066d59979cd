package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/verify"
)

// headerLog records the request headers a handler saw.
type headerLog struct {
	mu   sync.Mutex
	seen []http.Header
}

func (l *headerLog) add(h http.Header) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, h.Clone())
}

func (l *headerLog) all() []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]http.Header{}, l.seen...)
}

// serveVersion answers with body, its strong ETag tag and Repr-Digest.
func serveVersion(w http.ResponseWriter, tag string, body []byte) {
	w.Header().Set("ETag", tag)
	w.Header().Set("Repr-Digest", reprOf(body))
	w.Write(body)
}

// The versions cached for a URL are offered (A-IM, If-None-Match with
// their entity tags) to its origin only: a redirect to another origin
// does not tell it which versions of the first hdig holds, as cookies and
// dictionaries are not sent there either.
func TestDeltaOfferNotAcrossRedirect(t *testing.T) {
	v1, v2 := deltaText(1), deltaText(2)
	var other headerLog
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.add(r.Header)
		serveVersion(w, `"b-v2"`, v2)
	}))
	defer b.Close()
	var moved atomic.Bool
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if moved.Load() {
			http.Redirect(w, r, b.URL+"/f", http.StatusFound)
			return
		}
		serveVersion(w, `"a-v1-user-1234"`, v1)
	}))
	defer a.Close()
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, _ := NewClient(Options{Timeout: testStall, FollowRedirects: true})
	get := func() []byte {
		var out bytes.Buffer
		req := &Request{URL: a.URL + "/f", Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store, NoDictionary: true}}
		if _, err := c.Get(context.Background(), req, &HeldSink{Out: &out}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	get()
	if vs, _ := store.Versions(a.URL + "/f"); len(vs) != 1 {
		t.Fatalf("%d versions cached; want v1", len(vs))
	}
	moved.Store(true)
	if out := get(); !bytes.Equal(out, v2) {
		t.Fatalf("%d bytes; want v2's %d", len(out), len(v2))
	}
	for _, h := range other.all() {
		if h.Get("If-None-Match") != "" || h.Get("A-IM") != "" {
			t.Errorf("the other origin got If-None-Match %q, A-IM %q; want neither", h.Get("If-None-Match"), h.Get("A-IM"))
		}
	}
}

// Another origin a redirect led to, answering 304 with the entity tag of
// the version cached for the first, does not have that version released
// as its answer: it was offered nothing, so its 304 answers no condition.
func TestDeltaNotModifiedFromOtherOriginRefused(t *testing.T) {
	v1 := deltaText(1)
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"a-v1"`)
		w.Header().Set("Repr-Digest", reprOf(v1))
		w.WriteHeader(http.StatusNotModified)
	}))
	defer b.Close()
	var moved atomic.Bool
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if moved.Load() {
			http.Redirect(w, r, b.URL+"/f", http.StatusFound)
			return
		}
		serveVersion(w, `"a-v1"`, v1)
	}))
	defer a.Close()
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, _ := NewClient(Options{Timeout: testStall, FollowRedirects: true})
	get := func() (*Result, []byte, error) {
		var out bytes.Buffer
		req := &Request{URL: a.URL + "/f", Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store, NoDictionary: true}}
		res, err := c.Get(context.Background(), req, &HeldSink{Out: &out})
		return res, out.Bytes(), err
	}
	if _, _, err := get(); err != nil {
		t.Fatal(err)
	}
	moved.Store(true)
	res, out, err := get()
	if err == nil || len(out) != 0 {
		t.Fatalf("the other origin's 304: %v, %d bytes written (strategy %v); want an error, nothing written", err, len(out), res.Strategy)
	}
}

// A version another origin sent after a redirect is not kept as a
// version of the URL asked for: that URL's origin, answering 304 to its
// entity tag (chosen by the other, say an http hop a network attacker
// answered), would have the other's bytes written as its own.
func TestDeltaRedirectedVersionNotCached(t *testing.T) {
	real, forged := []byte("the origin's file\n"), []byte("another origin's bytes\n")
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"e1"`)
		w.Write(forged)
	}))
	defer b.Close()
	var moved atomic.Bool
	moved.Store(true)
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if moved.Load() {
			http.Redirect(w, r, b.URL+"/f", http.StatusFound)
			return
		}
		w.Header().Set("ETag", `"e1"`)
		if r.Header.Get("If-None-Match") == `"e1"` {
			w.WriteHeader(http.StatusNotModified) // no Repr-Digest, as nginx
			return
		}
		w.Write(real)
	}))
	defer a.Close()
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c, _ := NewClient(Options{Timeout: testStall, FollowRedirects: true})
	get := func() []byte {
		var out bytes.Buffer
		req := &Request{URL: a.URL + "/f", Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store, NoDictionary: true}}
		if _, err := c.Get(context.Background(), req, &HeldSink{Out: &out}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	if out := get(); !bytes.Equal(out, forged) {
		t.Fatalf("through the redirect: %q", out)
	}
	if vs, _ := store.Versions(a.URL + "/f"); len(vs) != 0 {
		t.Errorf("%d versions cached for %s from another origin; want none", len(vs), a.URL)
	}
	moved.Store(false)
	if out := get(); !bytes.Equal(out, real) {
		t.Errorf("the origin's own answer: %q; want %q", out, real)
	}
}
