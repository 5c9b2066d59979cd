package check

import (
	"net/http"
	"strings"
	"testing"
)

// An origin that serves the identity GET but fails every request
// accepting a content coding (every browser's) fails encoding.repr-digest;
// a 406, which RFC 9110 allows, stays a skip.
func TestEncodingRequestError(t *testing.T) {
	for status, want := range map[int]Status{500: Fail, 404: Fail, 503: Fail, 406: Skip} {
		url := newOrigin(t, func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
					http.Error(w, "no", status)
					return
				}
				next.ServeHTTP(w, r)
			})
		})
		r := auditURL(t, url+"/doc.txt", Options{})
		if c := result(r, "encoding.repr-digest"); c.Status != want {
			t.Errorf("%d for the encoded GET: encoding.repr-digest %s %q, want %s", status, c.Status, c.Message, want)
		}
		if c := result(r, "http.status"); c.Status != Pass {
			t.Errorf("%d for the encoded GET: http.status %s", status, c.Status)
		}
	}
}
