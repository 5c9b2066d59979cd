package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// setRepr replaces the Repr-Digest of identity GET 200s with what edit
// makes of the correct digests of the body; control files (.zsync) keep
// theirs.
func setRepr(edit func(sums []verify.Digest) string) func(http.Handler) http.Handler {
	return rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status == http.StatusOK && r.Method == http.MethodGet && h.Get("Content-Encoding") == "" && !strings.HasSuffix(r.URL.Path, ".zsync") {
			h.Set(verify.ReprDigest, edit(sumsOf(string(body))))
		}
		return body
	})
}

const wrongMD5 = "md5=:AAAAAAAAAAAAAAAAAAAAAA==:"

// Issue 9: a mismatch of any member hdig computes fails repr-digest.match,
// whatever else the field holds. The rewritten field also answers the
// Want-Repr-Digest probe, which fails as the GET's field does (a second
// GET returns the same bytes: they are the representation). The HEAD's and the 206's, right,
// are compared with the bytes the GET returned, not with its false claim,
// so they are not the ones failed.
var mismatchFaults = []fault{
	{name: "deprecated md5 mismatch beside a sha-256 match",
		wrap: setRepr(func(s []verify.Digest) string { return only(s, "sha-256") + ", " + wrongMD5 }),
		fail: []string{"repr-digest.match", "want-repr-digest.honoured"}, warn: []string{"repr-digest.algorithm"},
		hint: "Repr-Digest " + wrongMD5 + " on GET 200 does not match"},
	{name: "unpadded md5 beside a padded wrong sha-256",
		wrap: setRepr(func(s []verify.Digest) string {
			return strings.TrimRight(only(s, "md5"), "=:") + ":, " + only(emptySums(), "sha-256")
		}),
		fail: []string{"repr-digest.match", "want-repr-digest.honoured"}, warn: []string{"repr-digest.algorithm"},
		hint: "Repr-Digest sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=: on GET 200 does not match"},
	{name: "wrong sha-256 beside an unknown member",
		wrap: setRepr(func(s []verify.Digest) string { return only(emptySums(), "sha-256") + ", foo=?1" }),
		fail: []string{"repr-digest.match", "repr-digest.syntax", "want-repr-digest.honoured"},
		hint: "does not match the 7780 bytes of the representation"},
	{name: "wrong sha-256 in a field with a syntax error",
		wrap: setRepr(func(s []verify.Digest) string { return only(emptySums(), "sha-256") + ", x=@" }),
		fail: []string{"repr-digest.match", "repr-digest.syntax", "want-repr-digest.honoured"},
		hint: "does not match the 7780 bytes of the representation"},
}

func TestMismatchNeverHidden(t *testing.T) {
	for _, f := range mismatchFaults {
		t.Run(f.name, func(t *testing.T) {
			r := auditURL(t, newOrigin(t, f.wrap)+"/doc.txt", Options{})
			assertFault(t, r, f)
		})
	}
}

// A field sent in both the header and the trailer must say the same.
func TestHeaderTrailerDisagree(t *testing.T) {
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.Header.Get("Range") != "" || r.Header.Get("A-IM") != "" {
				h.ServeHTTP(w, r)
				return
			}
			body := lines(200, 1)
			sums := sumsOf(body)
			w.Header().Set("Trailer", verify.ReprDigest)
			w.Header().Set(verify.ReprDigest, only(sums, "sha-256")+", foo=:AQ==:")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(body))
			w.Header().Set(verify.ReprDigest, "foo=:Ag==:")
		})
	}
	r := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	for _, c := range r.Checks {
		if c.ID == "repr-digest.match" {
			if c.Status != Fail || !strings.Contains(c.Message, "differs between header and trailer") {
				t.Errorf("repr-digest.match = %s %q, want a failure naming the disagreement", c.Status, c.Message)
			}
			return
		}
	}
	t.Fatal("no repr-digest.match")
}
