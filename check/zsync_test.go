package check

import (
	"bytes"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// result returns the result of check id in r.
func result(r Report, id string) Result {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return Result{}
}

// newBody is body put in place of a response's, its digest fields
// (of the old body) taken out.
func newBody(h http.Header, body []byte) []byte {
	h.Del(verify.ReprDigest)
	h.Del(verify.ContentDigest)
	return body
}

// controlOf makes a control file for body.
func controlOf(t *testing.T, body string) []byte {
	t.Helper()
	c, err := zsync.Make(strings.NewReader(body), int64(len(body)), zsync.MakeOptions{Blocksize: 1024, URL: "doc.txt"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	c.WriteTo(&b)
	return b.Bytes()
}

func TestZsyncControl(t *testing.T) {
	noLink := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		h.Del("Link")
		return body
	}
	own := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			return newBody(h, controlOf(t, lines(200, 1)))
		}
		return body
	}
	stale := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			b := []byte(lines(200, 1))
			b[5000] ^= 1
			return newBody(h, controlOf(t, string(b)))
		}
		return body
	}
	elsewhere := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			c, err := zsync.Make(strings.NewReader(lines(200, 1)), 7780, zsync.MakeOptions{Blocksize: 1024, URL: "old/doc.txt"})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			c.WriteTo(&b)
			return newBody(h, b.Bytes())
		}
		return body
	}
	garbled := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			b := controlOf(t, lines(200, 1))
			return newBody(h, b[:len(b)-3])
		}
		return body
	}
	gone := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		h.Del("Link")
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			*status = http.StatusNotFound
			return []byte("no")
		}
		return body
	}
	// busy answers the first n requests for the control file with refusal
	// and Retry-After: 0 (hdig serve sends 503 while its build slots are
	// taken), then with status.
	busy := func(n, refusal, status int) func(*http.Request, *int, http.Header, []byte) []byte {
		var seen atomic.Int32
		return func(r *http.Request, st *int, h http.Header, body []byte) []byte {
			if !strings.HasSuffix(r.URL.Path, ".zsync") {
				return body
			}
			if int(seen.Add(1)) <= n {
				*st = refusal
				h.Set("Retry-After", "0")
				return []byte("busy")
			}
			if status != http.StatusOK {
				*st = status
				return []byte("gone")
			}
			return body
		}
	}
	for _, c := range []struct {
		name  string
		wrap  func(*http.Request, *int, http.Header, []byte) []byte
		zsync bool
		want  Status
		msg   string
	}{
		{"served", nil, false, Pass, "(advertised by Link) matches the file: Length 7780, 4 blocks of 2048 bytes"},
		{"advertised", own, false, Pass, "(advertised by Link) matches the file: Length 7780, 8 blocks of 1024 bytes"},
		{"no link", noLink, false, Skip, `no Link rel="describedby"`},
		{"no link, --zsync", noLink, true, Pass, "(asked for with --zsync) matches the file"},
		{"URL elsewhere", elsewhere, false, Warn, `matches the file: Length 7780, 8 blocks of 1024 bytes, SHA-1 38930013ffc2e34ec143e605ae001419cd93fbd0; but its URL line "old/doc.txt" resolves to http://`},
		{"stale", stale, false, Fail, "does not describe the file: 1 of 8 blocks differ from the file, the first block 4 (bytes 4096-5119)"},
		{"truncated", garbled, false, Fail, "does not parse: control file block table: want 8 blocks"},
		{"missing, --zsync", gone, true, Fail, "returned 404 Not Found, want 200 with the control file"},
		{"busy once", busy(1, 503, 200), false, Pass, "4 blocks of 2048 bytes, SHA-1 38930013ffc2e34ec143e605ae001419cd93fbd0 (after 1 retry: 503 with Retry-After)"},
		{"slow down", busy(1, 429, 200), false, Pass, "SHA-1 38930013ffc2e34ec143e605ae001419cd93fbd0 (after 1 retry: 429 with Retry-After)"},
		{"busy", busy(100, 503, 200), false, Fail, "returned 503 Service Unavailable (after 2 retries: 503, 503 with Retry-After), want 200 with the control file"},
		{"busy, then gone", busy(1, 503, 404), false, Fail, "returned 404 Not Found (after 1 retry: 503 with Retry-After), want 200 with the control file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var wrap func(http.Handler) http.Handler
			if c.wrap != nil {
				wrap = rewrite(c.wrap)
			}
			r := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{Zsync: c.zsync})
			got := result(r, "zsync.control")
			if got.Status != c.want || !strings.Contains(got.Message, c.msg) {
				t.Errorf("zsync.control = %s %q, want %s and %q", got.Status, got.Message, c.want, c.msg)
			}
		})
	}
}

// TestSameResource: a control file's URL line names the audited file in
// whatever escaping it chose ("%24" for "$", as hdig index writes it).
func TestSameResource(t *testing.T) {
	for _, tc := range []struct {
		x, y string
		want bool
	}{
		{"http://h/sub/x%5Cy;%7B%7D%23%24.txt", "http://h/sub/x%5Cy;%7B%7D%23$.txt", true},
		{"http://H:80/a", "http://h:80/a", true},
		{"http://h/a", "http://h/b", false},
		{"http://h/a?x=1", "http://h/a", false},
		{"https://h/a", "http://h/a", false},
	} {
		if got := sameResource(tc.x, tc.y); got != tc.want {
			t.Errorf("sameResource(%q, %q) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

// The control file is checked against a second GET of the file; an origin
// that answers that GET (no Want-*-Digest) with other bytes, the ones its
// control file describes, must not pass: the control file does not
// describe the representation audited, under the same ETag.
func TestZsyncControlOfOtherBytesFails(t *testing.T) {
	other := []byte(lines(200, 1))
	other[3000] ^= 1
	edit := func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		switch {
		case strings.HasSuffix(r.URL.Path, ".zsync"):
			return newBody(h, controlOf(t, string(other)))
		case r.Method == http.MethodGet && r.Header.Get("Want-Repr-Digest") == "" && r.Header.Get("Range") == "":
			return other
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{Zsync: true})
	if got := result(rep, "zsync.control"); got.Status != Fail {
		t.Errorf("zsync.control = %s (%s), want fail: it describes other bytes than the GET's", got.Status, got.Message)
	}
}
