package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/verify"
)

// recorder keeps the credential fields of every request an origin saw.
type recorder struct {
	mu   sync.Mutex
	seen []string // "METHOD RANGE: field=value"
	n    int
}

func (r *recorder) note(req *http.Request) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	for _, f := range credentialFields {
		if v := req.Header.Get(f); v != "" {
			r.seen = append(r.seen, req.Method+" "+req.Header.Get("Range")+": "+f+"="+v)
		}
	}
	return true
}

func (r *recorder) report() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, append([]string(nil), r.seen...)
}

// redirector answers every request with a 302 to target and records it.
func redirector(t *testing.T, target string) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.note(r)
		http.Redirect(w, r, target, http.StatusFound)
	}))
	t.Cleanup(s.Close)
	return s, rec
}

func credentialRequest(u string) *Request {
	h := http.Header{}
	h.Set("Authorization", "Bearer s3cret")
	h.Set("Cookie", "session=s3cret")
	h.Set("Proxy-Authorization", "Basic s3cret")
	return &Request{URL: u, Header: h, Policy: verify.DefaultPolicy(),
		WantRepr: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}, WantContent: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}}
}

// With -L, a redirect to another origin (here: the same host, another port)
// gets none of the user's credentials, on the first request and on every
// range piece after it (curl CVE-2022-27776). The redirecting origin, to
// which they were given, gets them.
func TestCredentialsStayWithTheirOrigin(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	target := &recorder{}
	o.before = target.note
	from, fromRec := redirector(t, o.srv.URL+"/f")
	c, err := NewClient(Options{FollowRedirects: true, Timeout: testStall})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f")
	req0 := credentialRequest(from.URL + "/go")
	shown := &recorder{} // what -v would show of the requests to the target
	req0.OnRequest = func(r *http.Request) {
		if strings.HasPrefix(o.srv.URL, "http://"+r.URL.Host) {
			shown.note(r)
		}
	}
	res, err := c.Download(context.Background(), req0, path, pieceOpts)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	if n, seen := target.report(); n < 2 || len(seen) > 0 {
		t.Errorf("the redirect target (%d requests, %d pieces) saw credentials: %q", n, res.Pieces, seen)
	}
	if n, seen := shown.report(); n < 2 || len(seen) > 0 {
		t.Errorf("-v showed %d requests to the target with credentials %q", n, seen)
	}
	if _, seen := fromRec.report(); len(seen) != 3 {
		t.Errorf("the origin the credentials were given for saw %q, want all three", seen)
	}

	// One request (the held stdout path) and a retry: the same.
	target2 := &recorder{}
	o.set(func() { o.before = target2.note })
	req := credentialRequest(from.URL + "/go")
	if _, err := c.Get(context.Background(), req, &HeldSink{Out: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	if n, seen := target2.report(); n != 1 || len(seen) > 0 {
		t.Errorf("one GET: the target saw %d requests, credentials %q", n, seen)
	}
}

// The URL's userinfo is a credential too: it becomes Authorization for its
// own origin only.
func TestUserinfoStaysWithItsOrigin(t *testing.T) {
	o := newTestOrigin(t, 1000)
	target := &recorder{}
	o.before = target.note
	from, fromRec := redirector(t, o.srv.URL+"/f")
	u, _ := url.Parse(from.URL + "/go")
	u.User = url.UserPassword("user", "s3cret")
	c, _ := NewClient(Options{FollowRedirects: true, Timeout: testStall})
	req := credentialRequest(u.String())
	req.Header = http.Header{}
	if _, err := c.Get(context.Background(), req, &HeldSink{Out: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	if _, seen := target.report(); len(seen) > 0 {
		t.Errorf("the redirect target saw %q", seen)
	}
	if _, seen := fromRec.report(); len(seen) != 1 || !strings.Contains(seen[0], "Authorization=Basic") {
		t.Errorf("the userinfo's origin saw %q, want its Basic credentials", seen)
	}
}

// A redirect within the origin keeps the credentials, pieces included.
func TestCredentialsKeptWithinTheOrigin(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	rec := &recorder{}
	o.before = rec.note
	mux := http.NewServeMux()
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		rec.note(r)
		http.Redirect(w, r, "/f", http.StatusFound)
	})
	mux.Handle("/", o)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, _ := NewClient(Options{FollowRedirects: true, Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	if _, err := c.Download(context.Background(), credentialRequest(srv.URL+"/go"), path, pieceOpts); err != nil {
		t.Fatal(err)
	}
	if n, seen := rec.report(); n < 3 || len(seen) != 3*n {
		t.Errorf("%d requests carried %d credential fields, want %d", n, len(seen), 3*n)
	}
}

// Origins are scheme, host and port; default ports are implied.
func TestOriginOf(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"http://h/x", "http://h:80/y", true},
		{"https://h/x", "https://H:443/", true},
		{"http://h/x", "https://h/x", false},
		{"http://h:8080/", "http://h:8081/", false},
		{"http://h/", "http://sub.h/", false},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := originOf(a) == originOf(b); got != tt.same {
			t.Errorf("same origin %s, %s = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

// The URL reported (--json "url") never shows a password.
func TestResultURLRedacted(t *testing.T) {
	o := newTestOrigin(t, 1000)
	u, _ := url.Parse(o.srv.URL + "/f")
	u.User = url.UserPassword("user", "s3cret")
	c, _ := NewClient(Options{Timeout: testStall})
	req := credentialRequest(u.String())
	res, err := c.Get(context.Background(), req, &HeldSink{Out: &bytes.Buffer{}})
	if err != nil || strings.Contains(res.URL, "s3cret") {
		t.Errorf("Get: url %q, %v", res.URL, err)
	}
	res, err = c.Download(context.Background(), req, filepath.Join(t.TempDir(), "f"), DownloadOptions{})
	if err != nil || strings.Contains(res.URL, "s3cret") {
		t.Errorf("Download: url %q, %v", res.URL, err)
	}
}

// A redirect hop carries no Referer hdig made up: Go's client would send
// the previous hop's URL, query included (a signed URL's token, an
// access_token), to wherever the redirect leads. As curl without
// -e ';auto', only the user's own Referer (-e) goes out, and it is kept.
func TestRedirectSendsNoMadeUpReferer(t *testing.T) {
	o := newTestOrigin(t, 1000)
	var mu sync.Mutex
	var referers []string
	o.before = func(r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		referers = append(referers, r.Header.Get("Referer"))
		return true
	}
	from, _ := redirector(t, o.srv.URL+"/f")
	c, _ := NewClient(Options{FollowRedirects: true, Timeout: testStall})
	for _, own := range []string{"", "https://example.com/page"} {
		referers = nil
		req := credentialRequest(from.URL + "/go?access_token=s3cret")
		req.Header = http.Header{}
		if own != "" {
			req.Header.Set("Referer", own)
		}
		if _, err := c.Get(context.Background(), req, &HeldSink{Out: &bytes.Buffer{}}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if len(referers) != 1 || referers[0] != own {
			t.Errorf("with -e %q the redirect target saw Referer %q", own, referers)
		}
		mu.Unlock()
	}
}
