package check

// False passes of the gate (found by review): each origin below is wrong
// in one place that an earlier check did not compare.

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// wrongSHA512 is a well-formed sha-512 member that is not the digest of
// doc.txt.
var wrongSHA512 = only(sumsOf("not the document"), "sha-512")

// An origin whose Repr-Digest is right by default but wrong when a client
// prefers sha-512 (Want-Repr-Digest: sha-512=10) must not pass the gate:
// the client that asked for sha-512 gets a digest its bytes do not match.
func TestWantVariantWrongDigestFails(t *testing.T) {
	edit := func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512") {
			h.Set(verify.ReprDigest, wrongSHA512)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if len(ids(rep, Fail)) == 0 {
		t.Errorf("no check failed, but the sha-512 Repr-Digest sent on request is wrong:\n%s", dump(rep))
	}
}

// A HEAD whose Repr-Digest adds a wrong sha-512 beside the GET's sha-256
// must fail head.repr-digest: hdig hashed the GET body with sha-512.
func TestHeadExtraWrongMemberFails(t *testing.T) {
	right := only(sumsOf(files["doc.txt"]), "sha-256")
	edit := func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if r.Method == http.MethodHead {
			h.Set(verify.ReprDigest, right+", "+wrongSHA512)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	for _, c := range rep.Checks {
		if c.ID == "head.repr-digest" && c.Status != Fail {
			t.Errorf("head.repr-digest = %s (%s), want fail: HEAD's sha-512 is wrong", c.Status, c.Message)
		}
	}
}

// The same for a 206: a wrong sha-512 beside the right sha-256.
func TestRangeExtraWrongMemberFails(t *testing.T) {
	right := only(sumsOf(files["doc.txt"]), "sha-256")
	edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status == http.StatusPartialContent {
			h.Set(verify.ReprDigest, right+", "+wrongSHA512)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	for _, c := range rep.Checks {
		if c.ID == "range.repr-digest" && c.Status != Fail {
			t.Errorf("range.repr-digest = %s (%s), want fail: the 206's sha-512 is wrong", c.Status, c.Message)
		}
	}
}

// A 226 whose ETag names the current instance (the GET's) but whose delta
// rebuilds other bytes, with a Repr-Digest over those other bytes: the
// result is not the representation the GET returned, so delta.226 must
// fail, not pass on the 226's self-consistent Repr-Digest.
func TestDeltaRebuildingOtherBytesFails(t *testing.T) {
	other := lines(300, 9)
	wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status != http.StatusIMUsed {
			return body
		}
		ims, err := patch.ParseIM(h.Values("IM"))
		if err != nil {
			t.Fatal(err)
		}
		base := lines(300, 1)
		var out bytes.Buffer
		if err := patch.EncodeList(ims, strings.NewReader(base), int64(len(base)), strings.NewReader(other), &out); err != nil {
			t.Fatal(err)
		}
		h.Del(verify.ContentDigest)
		h.Set(verify.ReprDigest, only(sumsOf(other), "sha-256"))
		return out.Bytes()
	})
	url, e1 := deltaOrigin(t, wrap)
	r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
	got := result(r, "delta.226")
	if got.Status != Fail {
		t.Errorf("delta.226 = %s %q, want fail: the 226 names the GET's ETag but rebuilds other bytes", got.Status, got.Message)
	}
}
