package fetch

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
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
