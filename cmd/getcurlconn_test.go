package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGetSchemelessURL: like curl, a URL without scheme is http://.
func TestGetSchemelessURL(t *testing.T) {
	srv, seen := seeingOrigin(t, nil)
	code, out, stderr := runHdig(t, "get", "-s", strings.TrimPrefix(srv.URL, "http://")+"/p")
	if code != 0 || out != helloBody || seen.last(t).URI != "/p" {
		t.Errorf("exit %d, %q, %s", code, out, stderr)
	}
}

// TestGetIPVersion: -6 cannot reach an IPv4 literal, -4 can; both at once
// is a usage error.
func TestGetIPVersion(t *testing.T) {
	srv, _ := seeingOrigin(t, nil)
	if code, _, _ := runHdig(t, "get", "-s", "-4", srv.URL); code != 0 {
		t.Errorf("-4: exit %d", code)
	}
	if code, _, _ := runHdig(t, "get", "-s", "-6", srv.URL); code != ExitNetwork {
		t.Errorf("-6 to 127.0.0.1: exit %d, want 4", code)
	}
	if code, _, _ := runHdig(t, "get", "-4", "-6", srv.URL); code != ExitUsage {
		t.Errorf("-4 -6: exit %d, want 2", code)
	}
}

// TestGetHTTPVersion: over TLS, HTTP/2 by default and with --http2;
// --http1.1 keeps to HTTP/1.1.
func TestGetHTTPVersion(t *testing.T) {
	var protos []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos = append(protos, r.Proto)
		helloHandler(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	for _, flag := range []string{"--http2", "--http1.1"} {
		if code, _, stderr := runHdig(t, "get", "-s", "-k", flag, srv.URL); code != 0 {
			t.Fatalf("%s: exit %d: %s", flag, code, stderr)
		}
	}
	if strings.Join(protos, " ") != "HTTP/2.0 HTTP/1.1" {
		t.Errorf("protocols %q, want HTTP/2.0 then HTTP/1.1", protos)
	}
	if code, _, _ := runHdig(t, "get", "--http1.1", "--http2", srv.URL); code != ExitUsage {
		t.Errorf("both: exit %d, want 2", code)
	}
}

// TestGetMaxTime: -m ends a transfer that does not finish (exit 4, named).
func TestGetMaxTime(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	code, _, stderr := runHdig(t, "get", "-m", "0.2", srv.URL)
	if code != ExitNetwork || !strings.Contains(stderr, "-m") {
		t.Errorf("exit %d, %q; want 4 naming -m", code, stderr)
	}
	// To -o (the download engine, which keeps the part): 4, not 130.
	out := filepath.Join(t.TempDir(), "f")
	code, _, stderr = runHdig(t, "get", "-m", "0.2", "-o", out, srv.URL)
	if code != ExitNetwork || !strings.Contains(stderr, "-m") {
		t.Errorf("-o: exit %d, %q; want 4 naming -m", code, stderr)
	}
	assertNoFile(t, out)
	for _, bad := range [][]string{{"-m", "-1"}, {"-m", "soon"}, {"--connect-timeout", "-2"}, {"--retry-delay", "x"}, {"--limit-rate", "0"}, {"--max-redirs", "-2"}, {"--resolve", "h:80"}, {"-x", "http://"}} {
		if code, _, _ := runHdig(t, append(append([]string{"get"}, bad...), srv.URL)...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// TestGetMaxRedirs: --max-redirs bounds -L (exit 4 beyond).
func TestGetMaxRedirs(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/2":
			http.Redirect(w, r, "/1", http.StatusFound)
		case "/1":
			http.Redirect(w, r, "/0", http.StatusFound)
		default:
			helloHandler(w, r)
		}
	})
	// One line naming the flag and the absolute URL not followed, not
	// net/http's `Get "/0": maximum (1) redirects followed`.
	want := "hdig: more than 1 redirect (--max-redirs 1): not following " + srv.URL + "/0\n"
	if code, _, stderr := runHdig(t, "get", "-L", "--max-redirs", "1", srv.URL+"/2"); code != ExitNetwork || stderr != want {
		t.Errorf("--max-redirs 1, 2 hops: exit %d, %q; want exit 4, %q", code, stderr, want)
	}
	if code, out, _ := runHdig(t, "get", "-s", "-L", "--max-redirs", "2", "-w", "%{num_redirects}", srv.URL+"/2"); code != 0 || out != helloBody+"2" {
		t.Errorf("--max-redirs 2: exit %d, %q", code, out)
	}
}

// TestGetRetryDelay: --retry-delay is accepted with --retry and the retry
// happens.
func TestGetRetryDelay(t *testing.T) {
	n := 0
	srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if n++; n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		helloHandler(w, r)
	})
	code, out, _ := runHdig(t, "get", "-s", "--retry", "1", "--retry-delay", "0.01", srv.URL)
	if code != 0 || out != helloBody || len(seen.all()) != 2 {
		t.Errorf("exit %d, %q, %d requests", code, out, len(seen.all()))
	}
}

// TestGetLimitRate: the body arrives whole and verified under a limit.
func TestGetLimitRate(t *testing.T) {
	srv, _ := seeingOrigin(t, nil)
	if code, out, _ := runHdig(t, "get", "-s", "--limit-rate", "1M", srv.URL); code != 0 || out != helloBody {
		t.Errorf("exit %d, %q", code, out)
	}
}

// TestGetResolveAndProxy: --resolve pins a name to 127.0.0.1; -x sends
// through the proxy; --noproxy skips it.
func TestGetResolveAndProxy(t *testing.T) {
	t.Setenv("no_proxy", "") // the user's environment must not send the loopback origin around the proxy
	t.Setenv("NO_PROXY", "")
	srv, seen := seeingOrigin(t, nil)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	target := "http://pinned.test:" + port + "/r"
	if code, out, stderr := runHdig(t, "get", "-s", "--resolve", "pinned.test:"+port+":127.0.0.1", target); code != 0 || out != helloBody {
		t.Fatalf("--resolve: exit %d, %q, %s", code, out, stderr)
	}
	if h := seen.last(t); h.URI != "/r" {
		t.Errorf("origin saw %q", h.URI)
	}
	proxy, proxied := seeingOrigin(t, nil)
	if code, _, _ := runHdig(t, "get", "-s", "-x", strings.TrimPrefix(proxy.URL, "http://"), target); code != 0 {
		t.Fatalf("-x: exit %d", code)
	}
	if got := proxied.last(t).URI; got != target {
		t.Errorf("proxy saw %q, want %q", got, target)
	}
	n := len(proxied.all())
	if code, _, _ := runHdig(t, "get", "-s", "-x", proxy.URL, "--noproxy", "pinned.test", "--resolve", "pinned.test:"+port+":127.0.0.1", target); code != 0 || len(proxied.all()) != n {
		t.Errorf("--noproxy: exit %d, proxy saw %d more", code, len(proxied.all())-n)
	}
}

// TestGetCookies: -b FILE sends the file's cookies; -c FILE writes what the
// origin set, in the format curl writes and reads.
func TestGetCookies(t *testing.T) {
	srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "fresh", Value: "v2", Path: "/", Expires: time.Unix(4102444800, 0)})
		helloHandler(w, r)
	})
	dir := t.TempDir()
	in, out, curlOut := filepath.Join(dir, "in.txt"), filepath.Join(dir, "out.txt"), filepath.Join(dir, "curl.txt")
	os.WriteFile(in, []byte("127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc\n127.0.0.1\tFALSE\t/other\tFALSE\t0\tno\tx\n"), 0o600)
	if code, _, stderr := runHdig(t, "get", "-s", "-b", in, "-c", out, srv.URL+"/p"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := seen.last(t).Header.Get("Cookie"); got != "sid=abc" {
		t.Errorf("Cookie %q, want sid=abc", got)
	}
	runCurl(t, "-b", in, "-c", curlOut, srv.URL+"/p")
	if g, w := cookieLines(t, out), cookieLines(t, curlOut); g != w {
		t.Errorf("cookie jar:\nhdig %q\ncurl %q", g, w)
	}
	if code, _, _ := runHdig(t, "get", "-s", "-b", "a=1; b=2", srv.URL); code != 0 || seen.last(t).Header.Get("Cookie") != "a=1; b=2" {
		t.Errorf("-b NAME=VALUE: exit %d, Cookie %q", code, seen.last(t).Header.Get("Cookie"))
	}
}

// cookieLines are a cookie file's cookie lines, sorted.
func cookieLines(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && (!strings.HasPrefix(l, "#") || strings.HasPrefix(l, "#HttpOnly_")) {
			lines = append(lines, l)
		}
	}
	return strings.Join(sorted(lines), "\n")
}

func sorted(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// TestGetSeveralURLs: -O per URL, one verdict line each naming its URL;
// -Z concurrently; the exit status is the first failure's.
func TestGetSeveralURLs(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			notFound(w, r)
			return
		}
		helloHandler(w, r)
	})
	dir := t.TempDir()
	code, out, stderr := runHdig(t, "get", "-O", "-O", "--output-dir", dir, "-w", "%{filename_effective}\n", srv.URL+"/a.json", srv.URL+"/b.json")
	if code != 0 || out != filepath.Join(dir, "a.json")+"\n"+filepath.Join(dir, "b.json")+"\n" {
		t.Fatalf("exit %d, %q, %s", code, out, stderr)
	}
	if strings.Count(stderr, "✔ verified") != 2 || !strings.Contains(stderr, srv.URL+"/a.json: ✔") || !strings.Contains(stderr, srv.URL+"/b.json: ✔") {
		t.Errorf("verdict lines: %q", stderr)
	}
	zdir := t.TempDir()
	code, _, stderr = runHdig(t, "get", "-Z", "--parallel-max", "2", "-O", "--output-dir", zdir, srv.URL+"/c.json", srv.URL+"/missing", srv.URL+"/d.json")
	if code != ExitNetwork || strings.Count(stderr, "✔ verified") != 2 || !strings.Contains(stderr, "/missing: server answered 404") {
		t.Errorf("-Z: exit %d, %q", code, stderr)
	}
	assertFile(t, filepath.Join(zdir, "c.json"), helloBody)
	assertFile(t, filepath.Join(zdir, "d.json"), helloBody)
	if code, out, _ := runHdig(t, "get", "-s", srv.URL+"/a", srv.URL+"/b"); code != 0 || out != helloBody+helloBody {
		t.Errorf("to stdout: exit %d, %q", code, out)
	}
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "x"), srv.URL + "/a", srv.URL + "/b"},
		{"-Z", srv.URL + "/a", srv.URL + "/b"},
		{"-Z", "-O", "--parallel-max", "0", srv.URL + "/a", srv.URL + "/b"},
	} {
		if code, _, _ := runHdig(t, append([]string{"get"}, args...)...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestGetSeveralURLsShareJarAndDump: as in curl, the URLs of one command
// share the cookie jar (a cookie set by the first goes with the second)
// and -D FILE holds every URL's heads.
func TestGetSeveralURLsShareJarAndDump(t *testing.T) {
	srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			http.SetCookie(w, &http.Cookie{Name: "s", Value: "1", Path: "/"})
		}
		helloHandler(w, r)
	})
	dir := t.TempDir()
	jar, hdr := filepath.Join(dir, "jar"), filepath.Join(dir, "h")
	os.WriteFile(hdr, []byte("stale"), 0o644)
	if code, _, stderr := runHdig(t, "get", "-s", "-c", jar, "-D", hdr, srv.URL+"/login", srv.URL+"/next"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := seen.last(t).Header.Get("Cookie"); got != "s=1" {
		t.Errorf("second URL sent Cookie %q, want s=1", got)
	}
	if b, _ := os.ReadFile(hdr); strings.Count(string(b), "HTTP/1.1 200 OK\r\n") != 2 || strings.Contains(string(b), "stale") {
		t.Errorf("-D FILE = %q", b)
	}
	if !strings.Contains(cookieLines(t, jar), "\ts\t1") {
		t.Errorf("jar: %q", cookieLines(t, jar))
	}
}
