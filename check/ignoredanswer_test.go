package check

import (
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// lieOn serves the requests this picks with a wrong Repr-Digest (when
// wrong) and no ETag, so that etag.consistency cannot see them, after
// edit changes the request.
func lieOn(this func(r *http.Request) bool, edit func(r *http.Request), wrong bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		lie := rewrite(func(_ *http.Request, _ *int, h http.Header, b []byte) []byte {
			if wrong {
				h.Set(verify.ReprDigest, "sha-256=:"+b64Of("sha-256", "other bytes")+":")
			}
			h.Del("ETag")
			return b
		})(h)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !this(r) {
				h.ServeHTTP(w, r)
				return
			}
			edit(r)
			lie.ServeHTTP(w, r)
		})
	}
}

// An origin that ignores Range (no Accept-Ranges: range support is
// optional) answers 200 with the whole body: the range checks skip, but
// hdig get -r gets that answer and compares its digests with its bytes. A
// wrong Repr-Digest there must fail range.repr-digest; a right one not.
func TestRangeIgnoredAnswerDigests(t *testing.T) {
	isRange := func(r *http.Request) bool { return r.Header.Get("Range") != "" }
	noRange := func(r *http.Request) { r.Header.Del("Range") }
	for _, wrong := range []bool{true, false} {
		noRanges := rewrite(func(_ *http.Request, _ *int, h http.Header, b []byte) []byte {
			h.Del("Accept-Ranges") // range support is optional: not offered
			return b
		})
		wrap := func(h http.Handler) http.Handler { return noRanges(lieOn(isRange, noRange, wrong)(h)) }
		rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
		want := map[bool]Status{true: Fail, false: Skip}[wrong]
		if got := result(rep, "range.repr-digest"); got.Status != want {
			t.Errorf("Repr-Digest wrong %v: range.repr-digest = %s (%s), want %s", wrong, got.Status, got.Message, want)
		}
	}
}

// Asked for a delta from a version it does not keep, an origin answers
// 200 with the whole representation: delta.226 only warns, but hdig get
// --delta gets that answer and compares its digests with its bytes. A
// wrong Repr-Digest there must fail delta.226; a right one only warn.
func TestDeltaRefusedAnswerDigests(t *testing.T) {
	isDelta := func(r *http.Request) bool { return r.Header.Get("A-IM") != "" }
	for _, wrong := range []bool{true, false} {
		rep := auditURL(t, newOrigin(t, lieOn(isDelta, func(*http.Request) {}, wrong))+"/doc.txt", Options{BaseETag: `"not-kept"`})
		want := map[bool]Status{true: Fail, false: Warn}[wrong]
		if got := result(rep, "delta.226"); got.Status != want {
			t.Errorf("Repr-Digest wrong %v: delta.226 = %s (%s), want %s", wrong, got.Status, got.Message, want)
		}
	}
}
