package check

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A gzip variant that decodes to other bytes than the identity GET's,
// when the second GET that would tell whether the representation changed
// fails, is not judged (a skip, which --max-time turns into a fail), as
// versionRef leaves a HEAD or 206 it cannot pin down: encoding.decode
// failed, "it is another document", with nothing to show the
// representation had not changed in between.
func TestDecodedUnjudgedWhenSecondGETFails(t *testing.T) {
	gz := gzipped([]byte("another document entirely\n"))
	var served atomic.Bool
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				served.Store(true)
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("ETag", `"gz"`)
				w.Header().Set(verify.ReprDigest, only(sumsOf(string(gz)), "sha-256"))
				w.Header().Set("Content-Length", fmt.Sprint(len(gz)))
				w.Write(gz)
				return
			}
			if served.Load() && r.Method == http.MethodGet && r.Header.Get("Range") == "" {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	if got := result(rep, "encoding.decode"); got.Status != Skip {
		t.Errorf("encoding.decode = %s (%s), want skip: nothing tells whether the representation changed", got.Status, got.Message)
	}
}

// A variant whose Unencoded-Digest could not be compared with its decoded
// bytes (the variant over --max-body, or decoding to more than it) is not
// judged, and encoding.decode says that field went unjudged: its skip
// said only that the body was not decoded, as though the variant carried
// nothing a client compares after decoding.
func TestDecodeUnjudgedUnencodedSaid(t *testing.T) {
	wrong := "sha-256=:" + b64Of("sha-256", "not the document") + ":"
	for _, tc := range []struct {
		name    string
		maxBody int64
	}{
		{"variant over --max-body", 300},
		{"decoded over --max-body", 4000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
				if h.Get("Content-Encoding") != "" {
					h.Set(verify.UnencodedDigest, wrong)
				}
				return body
			}))+"/doc.txt", Options{MaxBody: tc.maxBody})
			got := result(rep, "encoding.decode")
			if got.Status == Pass || !strings.Contains(got.Message, verify.UnencodedDigest) {
				t.Errorf("encoding.decode = %s (%s), want it to say the Unencoded-Digest went unjudged", got.Status, got.Message)
			}
		})
	}
}
