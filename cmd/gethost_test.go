package cmd

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// -H 'Host: NAME' names the virtual host, as curl sends it (testing one
// site of a shared address): Go's client drops a Host entry of the header
// map, so the URL's host went instead. It goes on every request of the
// run (here, the HEAD and the pieces of --parallel), not to a redirect's
// other host.
func TestGetHostHeader(t *testing.T) {
	var mu sync.Mutex
	hosts := map[string]int{}
	body := strings.Repeat("v", 3<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts[r.Host]++
		mu.Unlock()
		w.Header().Set("ETag", `"v"`)
		http.ServeContent(w, r, "f", time.Time{}, strings.NewReader(body))
	}))
	defer srv.Close()
	code, out, errOut := runHdig(t, "get", "-s", "--no-cache", "--parallel", "3", "-H", "Host: vhost.test", srv.URL+"/f")
	if code != 0 || out != body {
		t.Fatalf("exit %d (%d bytes): %s", code, len(out), errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hosts) != 1 || hosts["vhost.test"] == 0 {
		t.Errorf("requests went with Host %v; want vhost.test on each", hosts)
	}
}

// A redirect to another origin gets that host's name, not the -H Host
// given for the first (nor its credentials).
func TestGetHostHeaderNotToOtherOrigin(t *testing.T) {
	var got string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Host
		w.Write([]byte("x"))
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/f", http.StatusFound)
	}))
	defer first.Close()
	if code, _, errOut := runHdig(t, "get", "-s", "-L", "--no-cache", "-H", "Host: vhost.test", first.URL+"/f"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := strings.TrimPrefix(other.URL, "http://"); got != want {
		t.Errorf("the redirect's origin got Host %q, want %q", got, want)
	}
}

// The cache keeps versions by URL; under -H Host the URL's address serves
// another site's resource. Two virtual hosts whose files share an ETag
// (nginx's mtime-size) must not be taken one for the other: the cache is
// not used, so no If-None-Match of the other site is sent.
func TestGetHostHeaderUsesNoCache(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"5f0-6"`)
		if r.Header.Get("If-None-Match") == `"5f0-6"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write([]byte("site " + r.Host[:1] + "\n"))
	}))
	defer srv.Close()
	cache, dir := t.TempDir(), t.TempDir()
	for _, host := range []string{"a.test", "b.test"} {
		out := filepath.Join(dir, host)
		if code, _, errOut := runHdig(t, "get", "-s", "--cache-dir", cache, "-H", "Host: "+host, "-o", out, srv.URL+"/f"); code != 0 {
			t.Fatalf("%s: exit %d: %s", host, code, errOut)
		}
		if b, _ := os.ReadFile(out); string(b) != "site "+host[:1]+"\n" {
			t.Errorf("Host %s: got %q, want site %s's file", host, b, host[:1])
		}
	}
}

// -v shows the Host that is sent: the one -H 'Host: NAME' gives, once, not the URL's
// host beside it.
func TestGetHostHeaderVerbose(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("x"))
	}))
	defer srv.Close()
	code, _, errOut := runHdig(t, "get", "-v", "--no-cache", "-H", "Host: vhost.test", srv.URL+"/f")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var hosts []string
	for _, l := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(strings.ToLower(l), "> host:") {
			hosts = append(hosts, l)
		}
	}
	if len(hosts) != 1 || hosts[0] != "> Host: vhost.test" {
		t.Errorf("-v shows Host lines %q, want one, vhost.test", hosts)
	}
}

// A redirect within the origin given keeps -H Host, as curl keeps it for
// the same host name: net/http keeps a request's Host only across a
// relative Location, so an absolute one to the same address went with the
// URL's host, and the other site at that address answered (here its /g,
// released as the file).
func TestGetHostHeaderSameOriginAbsoluteRedirect(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/f":
			http.Redirect(w, r, srv.URL+"/g", http.StatusFound)
		case r.Host == "vhost.test":
			w.Write([]byte("vhost's g\n"))
		default:
			w.Write([]byte("default site's g\n"))
		}
	}))
	defer srv.Close()
	code, out, errOut := runHdig(t, "get", "-s", "-L", "--no-cache", "-H", "Host: vhost.test", srv.URL+"/f")
	if code != 0 || out != "vhost's g\n" {
		t.Errorf("exit %d, got %q; want vhost's g: %s", code, out, errOut)
	}
}

// --resolve pins the URL's host to another address (a staging server, say),
// which serves its own version of the URL, under an ETag the real origin
// may also use (nginx's mtime-size). That version must not be kept as the
// URL's: a later plain fetch would send its ETag, get a 304 from the real
// origin, and write the staging bytes as the origin's.
func TestGetResolvePinUsesNoCache(t *testing.T) {
	site := func(body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"5f0-6"`)
			if r.Header.Get("If-None-Match") == `"5f0-6"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write([]byte(body))
		})
	}
	real := httptest.NewServer(site("real\n"))
	defer real.Close()
	_, port, _ := net.SplitHostPort(real.Listener.Addr().String())
	ln, err := net.Listen("tcp", "127.0.0.2:"+port)
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	staging := httptest.NewUnstartedServer(site("staging\n"))
	staging.Listener.Close()
	staging.Listener = ln
	staging.Start()
	defer staging.Close()
	cache, dir := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "f")
	if code, _, errOut := runHdig(t, "get", "-s", "--cache-dir", cache, "--resolve", "127.0.0.1:"+port+":127.0.0.2", "-o", out, real.URL+"/f"); code != 0 {
		t.Fatalf("staging: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(out); string(b) != "staging\n" {
		t.Fatalf("staging: got %q", b)
	}
	if code, _, errOut := runHdig(t, "get", "-s", "--cache-dir", cache, "-o", out, real.URL+"/f"); code != 0 {
		t.Fatalf("real: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(out); string(b) != "real\n" {
		t.Errorf("after a --resolve fetch, the origin's file is %q, want %q", b, "real\n")
	}
}

// A URL's name beyond ASCII is dialled as its IDNA form, which is how
// --resolve names it (curl's users write xn--…): that pin turns the cache
// off too, as the plain one does.
func TestResolvePinsIDN(t *testing.T) {
	tf := &transferFlags{Resolve: []string{"xn--bcher-kva.test:443:127.0.0.1"}}
	if !tf.pins("https://bücher.test/f") {
		t.Errorf("https://bücher.test/f under --resolve xn--bcher-kva.test:443: not pinned")
	}
	if tf.pins("https://example.test/f") || tf.pins("http://bücher.test/f") {
		t.Errorf("another name, or another port, taken as pinned")
	}
}
