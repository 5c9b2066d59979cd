package check

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// b64Of is the base64 digest of s with alg, as GCS and S3 send it.
func b64Of(alg, s string) string {
	a, _ := verify.Find(alg)
	h := a.New()
	h.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// outsideReprValues are, for each field outside RFC 9530 that describes
// the whole representation, its value over s.
func outsideReprValues(s string) map[string]string {
	return map[string]string{
		verify.UnencodedDigest:     "sha-256=:" + b64Of("sha-256", s) + ":",
		verify.GoogHash:            "crc32c=" + b64Of("crc32c", s) + ",md5=" + b64Of("md5", s),
		"x-amz-checksum-sha256":    b64Of("sha-256", s),
		"x-amz-checksum-crc64nvme": b64Of("crc64nvme", s),
	}
}

// A HEAD, a 206 or a Want-Repr-Digest variant carrying an Unencoded-Digest,
// x-goog-hash or x-amz-checksum-* that is not of the representation must
// fail its check: those fields describe the whole representation on each
// (the HEAD has the GET's header fields; hdig get compares a 206's with the
// whole, resume.reprFields), as foreign-digest.match judges the GET's. They
// were not compared, so the gate passed an origin whose -I or -C answers
// hdig get finds wrong.
func TestOutsideFieldsOnOtherResponsesCompared(t *testing.T) {
	for name, wrong := range outsideReprValues("not the document") {
		t.Run(name, func(t *testing.T) {
			failsWhenEdited(t, otherResponses, func(h http.Header, picked bool) {
				if picked {
					h.Set(name, wrong)
				}
			}, name+" names other bytes")
		})
	}
}

// The same fields, right on every response (and in a 206, of the whole
// representation, not the part), do not fail the HEAD, the 206 or the
// variant.
func TestOutsideFieldsOnOtherResponsesRightPass(t *testing.T) {
	right := outsideReprValues(files["doc.txt"])
	rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if h.Get("Content-Encoding") == "" && !strings.HasSuffix(r.URL.Path, ".zsync") {
			for k, v := range right {
				h.Set(k, v)
			}
		}
		return body
	}))+"/doc.txt", Options{})
	for _, tc := range otherResponses {
		if got := result(rep, tc.id); got.Status == Fail {
			t.Errorf("%s = %s (%s), want no failure: the fields are of the representation", tc.id, got.Status, got.Message)
		}
	}
	if bad := ids(rep, Fail); len(bad) > 0 {
		t.Errorf("failed %v:\n%s", bad, dump(rep))
	}
}
