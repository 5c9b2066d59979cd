package check

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// A 304 for If-None-Match: the GET's ETag whose Repr-Digest is stale (the
// digest of an earlier version) must fail etag.consistency: hdig get,
// holding the version of that ETag, compares the 304's Repr-Digest with it
// and fails, and the audit sent no conditional request to see it.
func TestNotModifiedStaleReprDigestFails(t *testing.T) {
	saw304 := false
	edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status == http.StatusNotModified {
			saw304 = true
			h.Set(verify.ReprDigest, only(sumsOf(lines(200, 2)), "sha-256"))
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if !saw304 {
		t.Error("the audit asked for no 304")
	}
	if got := result(rep, "etag.consistency"); got.Status != Fail {
		t.Errorf("etag.consistency = %s (%s), want fail: the 304's Repr-Digest is another version's\n%s", got.Status, got.Message, dump(rep))
	}
}

// An origin that computes Repr-Digest while sending the content, so sends
// it only as a trailer, cannot carry it on a HEAD, which RFC 9110 §9.3.2
// lets omit fields determined while generating content: head.repr-digest
// must not warn (a failure under --strict) for that correct origin.
func TestHeadWithoutTrailerOnlyDigestNotWarned(t *testing.T) {
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.Header().Del(verify.ReprDigest)
				w.Header().Del(verify.ContentDigest)
				w.WriteHeader(rec.Code)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	rep := auditURL(t, newOrigin(t, wrap, server.WithTrailerDigests())+"/doc.txt", Options{})
	if got := result(rep, "head.repr-digest"); got.Status == Warn || got.Status == Fail {
		t.Errorf("head.repr-digest = %s (%s), want no warning: the GET sends Repr-Digest only as a trailer, which a HEAD cannot carry", got.Status, got.Message)
	}
}

// An origin may ignore If-None-Match and answer 200, which is allowed,
// but hdig get, holding the version, gets that 200 and compares its
// digests: a wrong Repr-Digest there must fail etag.consistency, as on a
// 304; a right one must not.
func TestConditionIgnoredAnswerDigests(t *testing.T) {
	isINM := func(r *http.Request) bool { return r.Header.Get("If-None-Match") != "" }
	noINM := func(r *http.Request) { r.Header.Del("If-None-Match") }
	for _, wrong := range []bool{true, false} {
		rep := auditURL(t, newOrigin(t, lieOn(isINM, noINM, wrong))+"/doc.txt", Options{})
		want := map[bool]Status{true: Fail, false: Pass}[wrong]
		if got := result(rep, "etag.consistency"); got.Status != want {
			t.Errorf("Repr-Digest wrong %v: etag.consistency = %s (%s), want %s", wrong, got.Status, got.Message, want)
		}
	}
}

// The 200 that ignores If-None-Match is an identity 200: its content is
// the representation, and hdig get compares its Content-Digest and
// Content-MD5 with it. Wrong ones must fail etag.consistency too.
func TestConditionIgnoredAnswerContentDigests(t *testing.T) {
	for _, field := range []string{verify.ContentDigest, "Content-MD5"} {
		wrong := map[string]string{verify.ContentDigest: "sha-256=:" + b64Of("sha-256", "other") + ":", "Content-MD5": b64Of("md5", "other")}[field]
		edit := rewrite(func(r *http.Request, _ *int, h http.Header, b []byte) []byte {
			if r.Header.Get("If-None-Match") != "" {
				h.Set(field, wrong)
			}
			return b
		})
		wrap := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("If-None-Match") != "" {
					r.Header.Set("If-None-Match", `"never"`) // the condition fails: 200
				}
				edit(h).ServeHTTP(w, r)
			})
		}
		rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
		if got := result(rep, "etag.consistency"); got.Status != Fail {
			t.Errorf("%s wrong: etag.consistency = %s (%s), want fail", field, got.Status, got.Message)
		}
	}
}
