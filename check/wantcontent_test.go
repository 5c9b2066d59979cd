package check

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An origin that answers Want-Content-Digest: sha-512 (the probe of
// want-repr-digest.honoured) with a wrong Content-Digest, its Repr-Digest
// right, must not pass the gate: hdig get --want-content sha-512 gets a
// Content-Digest its bytes do not match and fails.
func TestWantVariantWrongContentDigestFails(t *testing.T) {
	edit := func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if strings.HasPrefix(r.Header.Get(verify.WantContentDigest), "sha-512") {
			h.Set(verify.ContentDigest, wrongSHA512)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "want-repr-digest.honoured"); got.Status != Fail {
		t.Errorf("want-repr-digest.honoured = %s (%s), want fail: the sha-512 Content-Digest sent on request is wrong\n%s", got.Status, got.Message, dump(rep))
	}
}

// The probe's Content-MD5 covers its content as Content-Digest does, and
// hdig get compares it with the bytes: a wrong one must fail, its body
// unread (compared with the representation) or read whole (a chunked
// answer, which a trailer may follow); a right one must not.
func TestWantVariantContentMD5Compared(t *testing.T) {
	wrong, right := b64Of("md5", "not the content"), b64Of("md5", files["doc.txt"])
	probe := func(r *http.Request) bool { return strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512") }
	chunked := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !probe(r) {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.(http.Flusher).Flush()
			w.Write(rec.Body.Bytes())
		})
	}
	for _, tc := range []struct {
		md5     string
		chunked bool
		want    Status
	}{{wrong, false, Fail}, {wrong, true, Fail}, {right, false, Pass}, {right, true, Pass}} {
		edit := rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
			if probe(r) {
				h.Set("Content-MD5", tc.md5)
			}
			return body
		})
		wrap := edit
		if tc.chunked {
			wrap = func(h http.Handler) http.Handler { return chunked(edit(h)) }
		}
		rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
		if got := result(rep, "want-repr-digest.honoured"); got.Status != tc.want {
			t.Errorf("Content-MD5 %s, chunked %v: want-repr-digest.honoured = %s (%s), want %s", tc.md5, tc.chunked, got.Status, got.Message, tc.want)
		}
	}
}

// Over --max-body the GET is not hashed, so the probe's Content-MD5 has
// nothing to be compared with: that is the audit's limit, not the
// origin's fault, and must not warn (a failure under --strict), as
// foreign-digest.match skips the GET's own.
func TestWantVariantContentMD5OverMaxBodyNotWarned(t *testing.T) {
	edit := rewrite(func(r *http.Request, _ *int, h http.Header, b []byte) []byte {
		if h.Get("Content-Encoding") == "" && len(b) > 0 && r.Header.Get("Range") == "" {
			h.Set("Content-MD5", b64Of("md5", string(b)))
		}
		return b
	})
	rep := auditURL(t, newOrigin(t, edit)+"/doc.txt", Options{MaxBody: 1000})
	if got := result(rep, "want-repr-digest.honoured"); got.Status != Pass {
		t.Errorf("want-repr-digest.honoured = %s (%s), want pass: the origin's Content-MD5 is right", got.Status, got.Message)
	}
}
