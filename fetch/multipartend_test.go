package fetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// A multipart/byteranges answer to -r whose message arrived whole (its
// Content-Length, or its last chunk) but whose parts did not: the origin's
// body is malformed, not cut by the connection. It was reported as "body
// truncated: got 855 of 855 bytes" (a network failure, exit 4); it is a
// protocol error whose one line says what was wanted and what came.
func TestMultipartEndsEarly(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
		length           bool // a Content-Length (else chunked)
	}{
		{"no close delimiter", "--B\r\nContent-Range: bytes 0-2/36\r\n\r\n012\r\n", "after part 1 (bytes 0-2/36): want another part or the close delimiter --B--", true},
		{"part short, chunked", "--B\r\nContent-Range: bytes 0-2/36\r\n\r\n01", "inside part 1 (bytes 0-2/36): got 2 of its 3 bytes", false},
		{"part short", "--B\r\nContent-Range: bytes 0-2/36\r\n\r\n012\r\n--B\r\nContent-Range: bytes 34-35/36\r\n\r\ny", "inside part 2 (bytes 34-35/36): got 1 of its 2 bytes", true},
		{"in a part's header", "--B\r\nContent-Range: bytes 0-2/36\r\n\r\n012\r\n--B\r\nContent-Ra", "after part 1 (bytes 0-2/36)", true},
		{"no part", "preamble\r\n", "before a part: want the delimiter --B", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "multipart/byteranges; boundary=B")
				if tc.length {
					w.Header().Set("Content-Length", strconv.Itoa(len(tc.body)))
				}
				w.WriteHeader(http.StatusPartialContent)
				if !tc.length {
					w.(http.Flusher).Flush()
				}
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, _ := NewClient(Options{Timeout: testStall})
			rs, _ := httpfield.ParseRanges("0-2,34-35")
			var out bytes.Buffer
			_, err := c.Do(context.Background(), &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Ranges: rs}, &HeldSink{Out: &out})
			if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "multipart body ended "+tc.want) || strings.Contains(err.Error(), "truncated") || out.Len() > 0 {
				t.Errorf("Do: %v (%d bytes out); want a protocol error saying %q, nothing released", err, out.Len(), tc.want)
			}
		})
	}
}
