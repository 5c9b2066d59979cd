package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A 226 whose Repr-Digest matches the rebuilt bytes but whose other digest
// fields of the representation (Unencoded-Digest, x-goog-hash,
// x-amz-checksum-*, the obsolete Digest), in its header or trailer, do not
// must fail delta.226: hdig get compares them with the rebuilt bytes and
// fails. Only Repr-Digest and the obsolete Digest were compared.
func TestDeltaOutsideFieldsCompared(t *testing.T) {
	other := sumsOf("not the document")
	b64 := func(alg string) string {
		for _, d := range other {
			if d.Algorithm == alg {
				return verify.Base64(d.Value)
			}
		}
		t.Fatalf("no %s", alg)
		return ""
	}
	for _, tc := range []struct{ key, value string }{
		{"Unencoded-Digest", "sha-256=:" + b64("sha-256") + ":"},
		{"x-amz-checksum-sha256", b64("sha-256")},
		{"x-goog-hash", "md5=" + b64("md5")},
	} {
		wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
			if *status == http.StatusIMUsed {
				h.Set(tc.key, tc.value)
			}
			return body
		})
		url, e1 := deltaOrigin(t, wrap)
		r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
		got := result(r, "delta.226")
		if got.Status != Fail || !strings.Contains(got.Message, tc.key) {
			t.Errorf("%s: delta.226 = %s %q, want a fail naming %s: it does not match the rebuilt bytes", tc.key, got.Status, got.Message, tc.key)
		}
	}
}

// A 226's Content-MD5 covers the delta as sent, as its Content-Digest
// does (hdig get compares both with the delta's bytes); a wrong one must
// fail delta.226. Only Content-Digest was compared.
func TestDeltaContentMD5Compared(t *testing.T) {
	wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status == http.StatusIMUsed {
			h.Set("Content-MD5", verify.Base64(func() []byte {
				for _, d := range sumsOf("not the delta") {
					if d.Algorithm == "md5" {
						return d.Value
					}
				}
				return nil
			}()))
		}
		return body
	})
	url, e1 := deltaOrigin(t, wrap)
	r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
	if got := result(r, "delta.226"); got.Status != Fail || !strings.Contains(got.Message, "Content-MD5") {
		t.Errorf("delta.226 = %s %q, want a fail naming Content-MD5: it does not match the delta", got.Status, got.Message)
	}
}
