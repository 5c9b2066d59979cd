package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// laterIdentityGETs returns a matcher of the identity GETs after the first
// (the dictionary's among them), counting on each call.
func laterIdentityGETs() func(r *http.Request) bool {
	n := 0
	return func(r *http.Request) bool {
		if r.Method != http.MethodGet || r.Header.Get("Range") != "" || r.Header.Get("Available-Dictionary") != "" || r.Header.Get("Accept-Encoding") != "identity" {
			return false
		}
		n++
		return n > 1
	}
}

// The digests of the responses the dictionary checks use are compared
// with their bytes, as hdig get compares them: on the dcb answer,
// Content-Digest and Content-MD5 with its encoded bytes; on the response
// whose body becomes the dictionary, every digest field with that body. A
// lying origin whose wrong field was never compared passed every check.
func TestDictionaryResponsesOwnDigests(t *testing.T) {
	wrong256 := "sha-256=:" + b64Of("sha-256", "not these bytes") + ":"
	for _, tc := range []struct {
		name  string
		this  func(r *http.Request) bool
		field string
		value string
	}{
		{"dcb Content-Digest", func(r *http.Request) bool { return r.Header.Get("Available-Dictionary") != "" }, verify.ContentDigest, wrong256},
		{"dcb Content-MD5", func(r *http.Request) bool { return r.Header.Get("Available-Dictionary") != "" }, "Content-MD5", b64Of("md5", "not these bytes")},
		{"dictionary Repr-Digest", laterIdentityGETs(), verify.ReprDigest, wrong256},
		{"dictionary Content-Digest", laterIdentityGETs(), verify.ContentDigest, wrong256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := dictOrigin(t, rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
				if tc.this(r) {
					h.Set(tc.field, tc.value)
				}
				return body
			}))
			rep := auditURL(t, base+"/doc.txt", Options{})
			var failed bool
			for _, id := range dictionaryIDs {
				failed = failed || result(rep, id).Status == Fail
			}
			if !failed {
				t.Errorf("no dictionary check failed for a wrong %s\n%s", tc.field, dump(rep))
			}
		})
	}
}

// The response whose body becomes the dictionary is asked for with the
// Want-*-Digest of every request, so that an origin that sends a digest
// only when asked sends it there too and a wrong one is seen. It was asked
// for with Accept-Encoding only, and a wrong Content-Digest went unseen.
func TestDictionaryFetchAsksForDigests(t *testing.T) {
	gets := 0
	wrap := rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if r.Header.Get(verify.WantContentDigest) == "" {
			h.Del(verify.ContentDigest) // sent only when asked
			return body
		}
		if r.Method == http.MethodGet && r.Header.Get("Range") == "" && r.Header.Get("Available-Dictionary") == "" && r.Header.Get("Accept-Encoding") == "identity" {
			if gets++; gets > 1 { // the GET's is right, the others' wrong
				h.Set(verify.ContentDigest, "sha-256=:"+b64Of("sha-256", "not these bytes")+":")
			}
		}
		return body
	})
	rep := auditURL(t, dictOrigin(t, wrap)+"/doc.txt", Options{})
	if got := result(rep, "dictionary.decode"); got.Status != Fail {
		t.Errorf("dictionary.decode = %s (%s), want fail: the dictionary's Content-Digest, sent when asked, is wrong", got.Status, got.Message)
	}
}

// An Unencoded-Digest on the encoded variant with no member hdig can
// compute is said, as foreign-digest.match says it of the GET's: it was
// dropped silently and encoding.decode passed as though it had been
// compared.
func TestEncodedUnencodedNotComparedNoted(t *testing.T) {
	wrap := rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if h.Get("Content-Encoding") != "" {
			h.Set(verify.UnencodedDigest, "foo=:AAAA:")
		}
		return body
	})
	rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	if got := result(rep, "encoding.decode"); got.Status == Pass || !strings.Contains(got.Message, verify.UnencodedDigest) {
		t.Errorf("encoding.decode = %s (%s), want a note naming Unencoded-Digest, not a silent pass", got.Status, got.Message)
	}
}
