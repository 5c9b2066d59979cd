package check

import (
	"encoding/base64"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/server/servertest"
	"github.com/hdig/hdig/verify"
)

// b64Sum is the base64 digest of hello.json with alg, as GCS and S3 send it.
func b64Sum(alg string, wrong bool) string {
	a, _ := verify.Find(alg)
	h := a.New()
	h.Write([]byte(servertest.Hello))
	if wrong {
		h.Write([]byte("!"))
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

func TestForeignDigestMatch(t *testing.T) {
	for _, tt := range []struct {
		name   string
		fields map[string][]string
		status Status
		msg    string
	}{
		{"none", nil, Skip, "sends no digest field outside RFC 9530"},
		{"goog", map[string][]string{"x-goog-hash": {"crc32c=" + b64Sum("crc32c", false), "md5=" + b64Sum("md5", false)}}, Pass, "x-goog-hash crc32c, md5"},
		{"goog wrong md5", map[string][]string{"x-goog-hash": {"crc32c=" + b64Sum("crc32c", false) + ",md5=" + b64Sum("md5", true)}}, Fail, "x-goog-hash md5 is " + b64Sum("md5", true) + ", want " + b64Sum("md5", false)},
		{"amz", map[string][]string{"x-amz-checksum-crc64nvme": {b64Sum("crc64nvme", false)}, "x-amz-checksum-sha256": {b64Sum("sha-256", false)}}, Pass, "x-amz-checksum-sha256 sha-256; x-amz-checksum-crc64nvme crc64nvme"},
		{"amz wrong crc32", map[string][]string{"x-amz-checksum-crc32": {b64Sum("crc32", true)}}, Fail, "x-amz-checksum-crc32 crc32 is"},
		{"amz composite", map[string][]string{"x-amz-checksum-crc32c": {b64Sum("crc32c", true) + "-4"}}, Warn, "composite of 4 multipart parts"},
		{"content-md5", map[string][]string{"Content-MD5": {b64Sum("md5", false)}}, Pass, "Content-MD5 md5"},
		{"unencoded wrong", map[string][]string{"Unencoded-Digest": {"sha-256=:" + b64Sum("sha-256", true) + ":"}}, Fail, "Unencoded-Digest sha-256 is"},
		{"malformed", map[string][]string{"Content-MD5": {"not base64!"}}, Warn, "Content-MD5 is malformed"},
		// The obsolete RFC 3230 Digest, which hdig get checks beside
		// Repr-Digest: a wrong one fails every download, so the gate too.
		{"legacy digest", map[string][]string{"Digest": {"SHA-256=" + b64Sum("sha-256", false)}}, Pass, "Digest sha-256"},
		{"legacy digest wrong", map[string][]string{"Digest": {"SHA-256=" + b64Sum("sha-256", true)}}, Fail, "Digest sha-256 is"},
		// Nothing compared is no pass: an unknown algorithm alone.
		{"unencoded unknown algorithm", map[string][]string{"Unencoded-Digest": {"foo=:AAAA:"}}, Warn, "Unencoded-Digest has no member hdig can compute (foo)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mode atomic.Value
			mode.Store("")
			url := newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
				if v := r.Header.Get(verify.AmzChecksumMode); v != "" {
					mode.Store(v)
				}
				for k, vs := range tt.fields {
					for _, v := range vs {
						h.Add(k, v)
					}
				}
				return body
			}))
			r := auditURL(t, url+"/hello.json", Options{})
			var got Result
			for _, c := range r.Checks {
				if c.ID == "foreign-digest.match" {
					got = c
				}
			}
			if got.Status != tt.status || !strings.Contains(got.Message, tt.msg) {
				t.Errorf("foreign-digest.match = %s %q, want %s containing %q", got.Status, got.Message, tt.status, tt.msg)
			}
			if mode.Load() != "ENABLED" {
				t.Errorf("GET sent x-amz-checksum-mode %q, want ENABLED", mode.Load())
			}
		})
	}
}

// A field outside RFC 9530 that comes as a trailer is compared as in the
// header (hdig get does so): a wrong Unencoded-Digest or Content-MD5 there
// was not seen, "the origin sends no digest field outside RFC 9530".
func TestForeignDigestInTrailer(t *testing.T) {
	for _, name := range []string{verify.UnencodedDigest, "Content-MD5", "Digest"} {
		value := map[string]string{
			verify.UnencodedDigest: "sha-256=:" + b64Sum("sha-256", true) + ":",
			"Content-MD5":          b64Sum("md5", true),
			"Digest":               "SHA-256=" + b64Sum("sha-256", true),
		}[name]
		r := auditURL(t, newOrigin(t, undeclaredTrailer(servertest.Hello, name, value))+"/hello.json", Options{})
		if got := result(r, "foreign-digest.match"); got.Status != Fail {
			t.Errorf("%s wrong in the trailer: foreign-digest.match = %s %q, want fail", name, got.Status, got.Message)
		}
	}
}
