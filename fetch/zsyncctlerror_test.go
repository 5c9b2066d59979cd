package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestZsyncControlErrorNamed: a control file that fails its own
// Repr-Digest (or its 404) was reported as "digest mismatch: Repr-Digest
// sha-256 mismatch: …", as though the file were wrong; the error now names
// the control file, and stays a mismatch (exit 1) or a status error.
func TestZsyncControlErrorNamed(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad.zsync" {
			w.Header().Set("Repr-Digest", "sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:")
			w.Write([]byte("zsync: 0.6.2\n"))
			return
		}
		http.NotFound(w, r)
	}))
	defer ts.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		path string
		is   func(error) bool
	}{
		{"/bad.zsync", func(err error) bool { return errors.Is(err, ErrMismatch) }},
		{"/gone.zsync", func(err error) bool { var se *StatusError; return errors.As(err, &se) }},
	} {
		req := &Request{URL: ts.URL + tc.path, Policy: verify.DefaultPolicy(), Header: http.Header{}}
		_, err := c.Zsync(context.Background(), req, ZsyncOptions{Output: out})
		if err == nil || !tc.is(err) || !strings.HasPrefix(err.Error(), "zsync control file "+ts.URL+tc.path+": ") {
			t.Errorf("%s: %v; want its kind kept and the message to name the control file", tc.path, err)
		}
	}
}
