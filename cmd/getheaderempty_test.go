package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// -H 'Name:' (nothing after the colon) removes the field hdig would send
// itself and sends nothing for any other, as curl does (-H 'Expect:' is
// the idiom that stops the automatic Expect: 100-continue); -H 'Name;'
// sends the field with an empty value. hdig sent "Name: " and kept its
// own defaults beside it.
func TestGetHeaderEmptyRemoves(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, make([]byte, expectContinueMin+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		args   []string
		absent []string
		empty  []string
	}{
		{"user-agent", []string{"-H", "User-Agent:"}, []string{"User-Agent"}, nil},
		{"user-agent -A", []string{"-A", "x/1", "-H", "User-Agent:"}, []string{"User-Agent"}, nil},
		{"want", []string{"-H", "Want-Repr-Digest:", "-H", "Want-Content-Digest:"}, []string{"Want-Repr-Digest", "Want-Content-Digest"}, nil},
		{"accept-encoding", []string{"--compressed", "-H", "accept-encoding:"}, []string{"Accept-Encoding"}, nil},
		{"expect", []string{"--data-binary", "@" + big, "-H", "Expect:"}, []string{"Expect"}, nil},
		{"content-type", []string{"-d", "a=b", "-H", "Content-Type:"}, []string{"Content-Type"}, nil},
		{"other", []string{"-H", "X-Custom:"}, []string{"X-Custom"}, nil},
		{"semicolon", []string{"-H", "X-Custom;"}, nil, []string{"X-Custom"}},
		{"defaults empty", []string{"--compressed", "-H", "Want-Repr-Digest;", "-H", "Accept-Encoding;"}, nil, []string{"Want-Repr-Digest", "Accept-Encoding"}},
		{"content-type empty", []string{"-d", "a=b", "-H", "Content-Type;"}, nil, []string{"Content-Type"}},
		{"expect empty", []string{"--data-binary", "@" + big, "-H", "Expect;"}, nil, []string{"Expect"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, seen := seeingOrigin(t, nil)
			args := append([]string{"get", "-s", "--no-cache"}, c.args...)
			if code, _, errOut := runHdig(t, append(args, srv.URL+"/f")...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			h := seen.last(t).Header
			for _, k := range c.absent {
				if vs, ok := h[k]; ok {
					t.Errorf("%s sent (%q); want none", k, vs)
				}
			}
			for _, k := range c.empty {
				if vs := h[k]; len(vs) != 1 || vs[0] != "" {
					t.Errorf("%s sent as %q; want one empty value", k, vs)
				}
			}
		})
	}
}

// -v shows the request as sent: no User-Agent line when -H 'User-Agent:'
// removed it.
func TestGetHeaderEmptyVerbose(t *testing.T) {
	srv, _ := seeingOrigin(t, nil)
	code, _, errOut := runHdig(t, "get", "-v", "--no-cache", "-H", "User-Agent:", srv.URL+"/f")
	if code != 0 || strings.Contains(errOut, "> User-Agent") || !strings.Contains(errOut, "> Want-Repr-Digest") {
		t.Errorf("exit %d, -v shows %q; want no User-Agent line", code, errOut)
	}
}

// An -H value or name with CR, LF or NUL would write other fields into
// the request (header injection): a usage error, nothing sent.
func TestHeaderInjectionRefused(t *testing.T) {
	srv, seen := seeingOrigin(t, nil)
	for _, h := range []string{"X-A: a\r\nX-B: b", "X-A: a\nb", "X-A: a\x00b", "X-A\r\nX-B: b", "X A: b"} {
		for _, cmd := range []string{"get", "check"} {
			code, _, errOut := runHdig(t, cmd, "-H", h, srv.URL+"/f")
			if code != 2 || !strings.Contains(errOut, "-H") {
				t.Errorf("%s -H %q: exit %d, %q; want 2 and a usage error", cmd, h, code, errOut)
			}
		}
	}
	if n := len(seen.all()); n != 0 {
		t.Errorf("the origin saw %d requests; want none", n)
	}
}

// -H 'If-None-Match:' leaves the cache's versions unoffered: without the
// field the request names no base, and its A-IM asked the origin for a
// delta from nothing (a 304 to it is refused, as to any unconditional
// request). -H 'A-IM:' alone is a plain revalidation, a 304 to it the
// cached version's.
func TestGetHeaderEmptyOffersNoBase(t *testing.T) {
	for _, omit := range []string{"If-None-Match:"} {
		t.Run(omit, func(t *testing.T) {
			dir := t.TempDir()
			n := 0
			srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("ETag", `"v1"`)
				if n++; n > 1 {
					w.WriteHeader(http.StatusNotModified) // whatever was asked
					return
				}
				helloHandler(w, r)
			})
			if code, _, errOut := runHdig(t, "get", "-s", "--cache-dir", dir, srv.URL+"/f"); code != 0 {
				t.Fatalf("first: exit %d: %s", code, errOut)
			}
			code, out, errOut := runHdig(t, "get", "-s", "--cache-dir", dir, "-H", omit, srv.URL+"/f")
			h := seen.last(t).Header
			if h.Get("If-None-Match") != "" || h.Get("A-IM") != "" {
				t.Errorf("sent If-None-Match %q, A-IM %q; want neither", h.Get("If-None-Match"), h.Get("A-IM"))
			}
			if code == 0 || out != "" {
				t.Errorf("exit %d, %d bytes out (%s); want the 304 to an unconditional request refused", code, len(out), errOut)
			}
		})
	}
}

// hdig check reads -H by the same rules: 'Name:' sends none (net/http's
// own User-Agent included), 'Name;' an empty one.
func TestCheckHeaderEmpty(t *testing.T) {
	srv, seen := seeingOrigin(t, nil)
	if code, _, errOut := runHdig(t, "check", "-H", "User-Agent:", "-H", "X-Custom;", "-H", "X-Other:", srv.URL+"/f"); code == 2 {
		t.Fatalf("exit 2: %s", errOut)
	}
	if len(seen.all()) == 0 {
		t.Fatal("the origin saw no request")
	}
	for _, r := range seen.all() {
		if vs, ok := r.Header["User-Agent"]; ok {
			t.Errorf("%s %s sent User-Agent %q; want none", r.Method, r.URI, vs)
		}
		if vs, ok := r.Header["X-Other"]; ok {
			t.Errorf("%s %s sent X-Other %q; want none", r.Method, r.URI, vs)
		}
		if vs := r.Header["X-Custom"]; len(vs) != 1 || vs[0] != "" {
			t.Errorf("%s %s sent X-Custom %q; want one empty value", r.Method, r.URI, vs)
		}
	}
}

// The pieces of --parallel, whose Range and Want-Content-Digest are their
// own, honour -H 'Name:' as the first request does.
func TestGetHeaderEmptyPieces(t *testing.T) {
	body := strings.Repeat("p", 3<<20)
	srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"p"`)
		http.ServeContent(w, r, "f", time.Time{}, strings.NewReader(body))
	})
	code, out, errOut := runHdig(t, "get", "-s", "--no-cache", "--parallel", "3", "-H", "Want-Content-Digest:", "-H", "User-Agent:", srv.URL+"/f")
	if code != 0 || out != body {
		t.Fatalf("exit %d (%d bytes): %s", code, len(out), errOut)
	}
	pieces := 0
	for _, r := range seen.all() {
		if r.Header.Get("Range") != "" {
			pieces++
		}
		for _, k := range []string{"Want-Content-Digest", "User-Agent"} {
			if vs, ok := r.Header[k]; ok {
				t.Errorf("%s (Range %q) sent %s %q; want none", r.Method, r.Header.Get("Range"), k, vs)
			}
		}
	}
	if pieces < 2 {
		t.Errorf("%d pieces; want the file fetched in pieces", pieces)
	}
}

// TestRangeFlagWithRangeRemoved: -r with -H 'Range:' (which removes the
// field -r sends) sent no Range, and the whole file came back, written as
// "the origin ignored Range": a usage error now, before anything is sent.
func TestRangeFlagWithRangeRemoved(t *testing.T) {
	srv, seen := seeingOrigin(t, helloHandler)
	code, _, errOut := runHdig(t, "get", "-sS", "--no-cache", "-r", "0-3", "-H", "Range:", srv.URL+"/f")
	if code != ExitUsage || !strings.Contains(errOut, "Range") {
		t.Errorf("exit %d, want 2 naming Range: %s", code, errOut)
	}
	if n := len(seen.all()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// TestGetHeaderGivenWins: a field the user gives, empty (-H 'Name;') or
// not, is what goes out, on every request: the pieces of --parallel
// replaced the user's Want-Content-Digest with their own, and an upload's
// empty Content-Digest was replaced with hdig's. -r with an empty Range
// field is a usage error, as -r with -H 'Range:' is.
func TestGetHeaderGivenWins(t *testing.T) {
	body := strings.Repeat("p", 3<<20)
	srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"p"`)
		http.ServeContent(w, r, "f", time.Time{}, strings.NewReader(body))
	})
	for _, want := range []string{"", "sha-256=3"} {
		seen.reset()
		code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "--parallel", "3", "-o", filepath.Join(t.TempDir(), "f"), "-H", "Want-Content-Digest;"+want, srv.URL+"/f")
		if want != "" {
			code, _, errOut = runHdig(t, "get", "-s", "--no-cache", "--parallel", "3", "-o", filepath.Join(t.TempDir(), "f"), "-H", "Want-Content-Digest: "+want, srv.URL+"/f")
		}
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, r := range seen.all() {
			if vs := r.Header.Values("Want-Content-Digest"); len(vs) != 1 || vs[0] != want {
				t.Errorf("Range %q sent Want-Content-Digest %q, want %q", r.Header.Get("Range"), vs, want)
			}
		}
	}
	seen.reset()
	if code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "-H", "Content-Digest;", "-d", "hello", srv.URL+"/up"); code != 0 {
		t.Fatalf("upload: exit %d: %s", code, errOut)
	}
	if vs := seen.last(t).Header.Values("Content-Digest"); len(vs) != 1 || vs[0] != "" {
		t.Errorf("upload sent Content-Digest %q, want the empty one given", vs)
	}
	code, _, errOut := runHdig(t, "get", "-sS", "--no-cache", "-r", "0-3", "-H", "Range;", srv.URL+"/f")
	if code != ExitUsage {
		t.Errorf("-r with -H 'Range;': exit %d, want 2: %s", code, errOut)
	}
}
