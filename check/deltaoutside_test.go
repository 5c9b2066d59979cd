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
