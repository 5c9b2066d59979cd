package check

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A header and a trailer Repr-Digest with different values are both
// compared, each once: the header's differing value, kept by the merge as
// an earlier value of a repeated key (Shadowed), was added again as a
// member of its own, so messages listed it twice.
func TestHeaderTrailerValueListedOnce(t *testing.T) {
	a := only(sumsOf("not the document"), "sha-256")
	b := only(sumsOf("nor this"), "sha-256")
	r := &response{
		header:  http.Header{verify.ReprDigest: {a}},
		trailer: http.Header{verify.ReprDigest: {b}},
	}
	o := compare(r.digests(verify.ReprDigest), sumsOf(files["doc.txt"]))
	var ms []string
	for _, d := range o.wrong {
		ms = append(ms, member(d))
	}
	got := strings.Join(ms, ", ")
	if len(o.wrong) != 2 || strings.Count(got, strings.TrimPrefix(a, "sha-256=")) != 1 || strings.Count(got, strings.TrimPrefix(b, "sha-256=")) != 1 {
		t.Errorf("wrong members %s, want the header's %s and the trailer's %s, each once", got, a, b)
	}
}
