package check

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
)

// An origin whose ETag changes on every request while its bytes do not
// (a server farm hashing inodes) had its HEAD and range Repr-Digest
// skipped as "the representation changed": a HEAD naming other bytes
// passed the gate with a mere etag.consistency warning. A second GET with
// the same bytes shows the representation did not change, so they are
// compared with the GET's.
func TestChangingETagSameBytes(t *testing.T) {
	for name, headDigest := range map[string]string{"lying HEAD": "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:", "honest HEAD": ""} {
		var n atomic.Int64
		url := newOrigin(t, func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				e := &etagger{ResponseWriter: w, tag: fmt.Sprintf(`"e%d"`, n.Add(1))}
				if r.Method == http.MethodHead {
					e.repr = headDigest
				}
				next.ServeHTTP(e, r)
			})
		})
		r := auditURL(t, url+"/doc.txt", Options{})
		want := Pass
		if headDigest != "" {
			want = Fail
		}
		if c := result(r, "head.repr-digest"); c.Status != want {
			t.Errorf("%s: head.repr-digest %s %q, want %s", name, c.Status, c.Message, want)
		}
		if c := result(r, "range.repr-digest"); c.Status != Pass {
			t.Errorf("%s: range.repr-digest %s %q, want pass", name, c.Status, c.Message)
		}
	}
}

// etagger sets its own ETag (when tag is set), Repr-Digest (when repr is
// set) and the fields in set on a response.
type etagger struct {
	http.ResponseWriter
	tag, repr string
	set       map[string]string
	done      bool
}

func (e *etagger) WriteHeader(code int) {
	if !e.done {
		e.done = true
		if e.tag != "" {
			e.Header().Set("ETag", e.tag)
		}
		if e.repr != "" {
			e.Header().Set("Repr-Digest", e.repr)
		}
		for k, v := range e.set {
			e.Header().Set(k, v)
		}
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *etagger) Write(b []byte) (int, error) {
	if !e.done {
		e.WriteHeader(http.StatusOK)
	}
	return e.ResponseWriter.Write(b)
}
