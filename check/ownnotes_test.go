package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A field that could not be compared (the obsolete Digest with no
// algorithm hdig computes, a malformed Content-MD5) on the encoded
// variant, on the dcb answer, on the response whose body becomes the
// dictionary or on the control file is said, as it is of the HEAD, the
// 206 and the Want-Repr-Digest variant (outsideFails): checkEncodedField
// and ownWrong dropped judgeOutside's notes, and the check passed as
// though the field had been compared.
func TestOwnFieldsNotComparedNoted(t *testing.T) {
	gzip := func(r *http.Request) bool { return strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") }
	dcb := func(r *http.Request) bool { return r.Header.Get("Available-Dictionary") != "" }
	zsync := func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, ".zsync") }
	for _, tc := range []struct {
		name, id, field, value string
		this                   func(r *http.Request) bool
	}{
		{"gzip variant Digest", "encoding.repr-digest", verify.LegacyDigest, "foo=AAAA", gzip},
		{"gzip variant Content-MD5", "encoding.content-digest", verify.ContentMD5, "!!", gzip},
		{"dcb answer Content-MD5", "dictionary.repr-digest", verify.ContentMD5, "!!", dcb},
		{"dcb answer Digest", "dictionary.repr-digest", verify.LegacyDigest, "foo=AAAA", dcb},
		{"dictionary Unencoded-Digest", "dictionary.decode", verify.UnencodedDigest, "foo=:AAAA:", laterIdentityGETs()},
		{"control file Unencoded-Digest", "zsync.control", verify.UnencodedDigest, "foo=:AAAA:", zsync},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := auditURL(t, dictOrigin(t, rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
				if tc.this(r) {
					h.Set(tc.field, tc.value)
				}
				return body
			}))+"/doc.txt", Options{})
			got := result(rep, tc.id)
			if got.Status == Pass || !strings.Contains(got.Message, tc.field) {
				t.Errorf("%s = %s (%s), want a note naming %s, not a silent pass", tc.id, got.Status, got.Message, tc.field)
			}
		})
	}
	// The variant's Unencoded-Digest, of its decoded bytes, is judged by
	// encoding.decode: encoding.repr-digest does not say it was set aside.
	rep := auditURL(t, alwaysGzipped(t, files["doc.txt"])+"/doc.txt", Options{})
	if got := result(rep, "encoding.repr-digest"); got.Status != Pass {
		t.Errorf("encoding.repr-digest = %s (%s), want pass: the variant's Unencoded-Digest is judged by encoding.decode", got.Status, got.Message)
	}
}
