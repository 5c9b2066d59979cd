package fetch

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// A 226 of unknown length (chunked) is read no further than
// --max-filesize, as one whose Content-Length is over it is refused
// before it is read: a vcdiff window's sections, up to 513 MiB, are held
// in memory until the window is whole, and an origin streaming one would
// have had all of it held whatever the bound.
func TestDeltaChunkedReadWithinMaxFileSize(t *testing.T) {
	base := []byte("a line of the base\n")
	target := make([]byte, 256<<10)
	rand.New(rand.NewSource(2)).Read(target)
	var delta bytes.Buffer
	if err := patch.EncodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &delta); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v2"`)
		w.Header().Set("Repr-Digest", sha256Field(target))
		if !strings.Contains(r.Header.Get("If-None-Match"), `"v1"`) {
			w.Write(target)
			return
		}
		w.Header().Set("IM", "vcdiff")
		w.Header().Set("Delta-Base", `"v1"`)
		w.WriteHeader(http.StatusIMUsed)
		for b := delta.Bytes(); len(b) > 0; b = b[min(len(b), 4096):] {
			w.Write(b[:min(len(b), 4096)])
			w.(http.Flusher).Flush() // chunked: no Content-Length
		}
	}))
	defer srv.Close()
	store := cachedBase(t, srv.URL, `"v1"`, base)
	c, _ := NewClient(Options{Timeout: testStall})
	const max = 64 << 10
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store}, Limits: Limits{MaxFileSize: max}}
	res, err := c.Get(context.Background(), req, &countSink{})
	if !errors.Is(err, ErrTooLarge) || res == nil || res.Received > max+1 {
		var got int64 = -1
		if res != nil {
			got = res.Received
		}
		t.Errorf("%v, %d bytes of the %d-byte delta received; want ErrTooLarge within %d", err, got, delta.Len(), max+1)
	}
}
