package fetch

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/verify"
)

// A Content-Encoding list builds one decoder per entry: thousands of
// entries would cost a decoder's memory each. Like curl, hdig undoes at most
// maxCodings of them and names the limit when there are more.
func TestDecoderStackBounded(t *testing.T) {
	body := []byte("hello")
	for i := 0; i < maxCodings; i++ {
		body = gzipped(body)
	}
	list := strings.TrimSuffix(strings.Repeat("gzip, ", maxCodings), ", ")
	r, done, err := dictDecoder(bytes.NewReader(body), list, nil, dictionary.Limits{})
	if err != nil {
		t.Fatalf("%d codings: %v", maxCodings, err)
	}
	got, err := io.ReadAll(r)
	done()
	if err != nil || string(got) != "hello" {
		t.Fatalf("%d codings decoded to %q, %v", maxCodings, got, err)
	}
	long := strings.Repeat("gzip, ", 5000) + "gzip"
	if _, _, err := dictDecoder(bytes.NewReader(body), long, nil, dictionary.Limits{}); err == nil || !strings.Contains(err.Error(), "at most") || len(err.Error()) > 200 {
		t.Fatalf("5001 codings: err = %v, want a short error naming the limit", err)
	}
}

// A Content-Encoding sent on two lines
// ("gzip", then "gzip") is one list of two codings (RFC 9110 §5.3): with
// --compressed both are undone, not the first line's only, which wrote
// gzip bytes as the decoded file.
func TestContentEncodingOverLines(t *testing.T) {
	plain := []byte("decoded twice\n")
	body := gzipped(gzipped(plain))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Content-Encoding", "gzip")
		w.Header().Add("Content-Encoding", "gzip")
		w.Header().Set("Repr-Digest", sha256Field(body))
		w.Write(body)
	}))
	defer srv.Close()
	c, _ := NewClient(Options{Timeout: testStall})
	var out bytes.Buffer
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Compressed: true}
	res, err := c.Do(context.Background(), req, &HeldSink{Out: &out})
	if err != nil || !bytes.Equal(out.Bytes(), plain) {
		t.Errorf("Do: %v; wrote %q (encoding %q), want %q", err, out.Bytes(), res.Encoding, plain)
	}
}
