package check

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/servertest"
)

// lines returns a deterministic text of n lines; version v edits a few, so
// that a delta between versions is small.
func lines(n, v int) string {
	var b strings.Builder
	for i := range n {
		x := i
		if v > 1 && i%37 == 5 {
			x = i*7 + v
		}
		fmt.Fprintf(&b, "line %d of the audited file, value %d\n", i, x)
	}
	return b.String()
}

// files are what the test origins serve.
var files = map[string]string{
	"hello.json": servertest.Hello,
	"doc.txt":    lines(200, 1),
	"empty.txt":  "",
	"blob.bin":   "\x00\x01\x02\x03 binary, not compressed \xff\xfe",
}

// newOrigin serves files with the reference origin and its options; wrap,
// if set, wraps its handler to inject faults the server has no option for.
func newOrigin(t *testing.T, wrap func(http.Handler) http.Handler, opts ...server.Option) string {
	t.Helper()
	s, err := server.New(servertest.WriteFiles(t, files), opts...)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL
}

// auditURL runs the checks of one URL.
func auditURL(t *testing.T, url string, o Options) Report {
	t.Helper()
	rs := Run(context.Background(), []string{url}, o)
	if len(rs) != 1 || len(rs[0].Checks) != len(Checks) {
		t.Fatalf("Run returned %d reports, want 1 with %d checks", len(rs), len(Checks))
	}
	return rs[0]
}

// ids returns the sorted ids of the checks with the given status.
func ids(r Report, st Status) []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == st {
			out = append(out, c.ID)
		}
	}
	sort.Strings(out)
	return out
}

// dump describes a report for failure messages.
func dump(r Report) string {
	var b bytes.Buffer
	WriteText(&b, []Report{r}, false)
	return b.String()
}

// rewrite buffers each response of h and lets edit change its status,
// header and body before it is sent; trailers are not kept.
func rewrite(edit func(r *http.Request, status *int, h http.Header, body []byte) []byte) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			status := rec.Code
			body := edit(r, &status, rec.Header(), rec.Body.Bytes())
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			if r.Method != http.MethodHead {
				w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			}
			w.WriteHeader(status)
			w.Write(body)
		})
	}
}

// bytesBase is a Base held in memory.
type bytesBase struct{ *bytes.Reader }

func (bytesBase) Close() error { return nil }

func baseOf(b string) BaseFunc {
	return func(string, string) (Base, error) { return bytesBase{bytes.NewReader([]byte(b))}, nil }
}
