package check

import (
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A 206's or an encoded variant's Content-MD5 covers the content as sent
// (the part, the encoded bytes), and hdig get -r or --compressed compares
// it with them: a wrong one must fail range.content-digest or
// encoding.content-digest, as a wrong Content-Digest does. Only the GET's
// and the 226's were compared, so the gate passed them.
func TestContentMD5OnPartAndVariantCompared(t *testing.T) {
	wrong := b64Of("md5", "not the content")
	for _, tc := range []otherResponse{
		{"range.content-digest", func(_ *http.Request, status int) bool { return status == http.StatusPartialContent }},
		{"encoding.content-digest", func(r *http.Request, status int) bool {
			return status == http.StatusOK && r.Method == http.MethodGet && r.Header.Get("Accept-Encoding") != "identity"
		}},
	} {
		edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			if tc.this(r, *status) {
				h.Set("Content-MD5", wrong)
			}
			return body
		}
		rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
		if got := result(rep, tc.id); got.Status != Fail {
			t.Errorf("%s = %s (%s), want fail: its Content-MD5 is of other bytes", tc.id, got.Status, got.Message)
		}
	}
}

// An encoded variant's x-goog-hash or x-amz-checksum-* not transcoded
// covers the bytes sent, the encoded ones, and hdig get --compressed
// compares it with them (fetch.sectionChecks): a wrong one must fail
// encoding.repr-digest, as its obsolete Digest does. Only Digest was
// compared.
func TestForeignOnEncodedVariantCompared(t *testing.T) {
	for name, wrong := range outsideReprValues("not the encoded bytes") {
		if name == "Unencoded-Digest" {
			continue // of the decoded bytes
		}
		rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			if h.Get("Content-Encoding") != "" {
				h.Set(name, wrong)
			}
			return body
		}))+"/doc.txt", Options{})
		if got := result(rep, "encoding.repr-digest"); got.Status != Fail {
			t.Errorf("%s: encoding.repr-digest = %s (%s), want fail: it names other bytes", name, got.Status, got.Message)
		}
	}
}

// An encoded variant's Unencoded-Digest covers its decoded bytes, and hdig
// get --compressed compares it with them (fetch.unencodedChecks): a wrong
// one must fail encoding.decode, which decodes the variant. It was set
// aside, and the variant passed.
func TestUnencodedDigestOnEncodedVariantCompared(t *testing.T) {
	wrong := outsideReprValues("not the decoded bytes")[verify.UnencodedDigest]
	right := outsideReprValues(files["doc.txt"])[verify.UnencodedDigest]
	for _, tc := range []struct {
		value string
		want  Status
	}{{wrong, Fail}, {right, Pass}} {
		rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			if h.Get("Content-Encoding") != "" {
				h.Set(verify.UnencodedDigest, tc.value)
			}
			return body
		}))+"/doc.txt", Options{})
		if got := result(rep, "encoding.decode"); got.Status != tc.want {
			t.Errorf("Unencoded-Digest %s: encoding.decode = %s (%s), want %s", tc.value, got.Status, got.Message, tc.want)
		}
	}
}
