package check

import (
	"bytes"
	"net/http"
	"testing"
)

// FuzzReadParts: whatever a 206's Content-Type, Content-Range and body,
// readParts (the multipart/byteranges reader of range.multipart) does not
// panic and bounds every size: at most maxParts+1 parts, none over the
// span, read from the body no further than those parts need, their bytes
// the body's own (raw, nothing decoded). Seeds in
// testdata/fuzz/FuzzReadParts.
func FuzzReadParts(f *testing.F) {
	f.Add("multipart/byteranges; boundary=B", "", []byte("--B\r\nContent-Range: bytes 0-1/10\r\n\r\nab\r\n--B\r\nContent-Range: bytes 5-6/10\r\n\r\nfg\r\n--B--\r\n"))
	f.Add("text/plain", "bytes 0-3/10", []byte("abcd"))
	f.Fuzz(func(t *testing.T, ct, cr string, body []byte) {
		const span, maxParts = 16, 2
		h := http.Header{"Content-Type": {ct}, "Content-Range": {cr}}
		c := &countingReader{r: bytes.NewReader(body)}
		parts, err := readParts(h, c, span, maxParts)
		if err != nil && parts != nil {
			t.Fatalf("error %v with %d parts", err, len(parts))
		}
		if len(parts) > maxParts+1 {
			t.Fatalf("%d parts, want at most %d", len(parts), maxParts+1)
		}
		for i, p := range parts {
			if len(p.b) > span {
				t.Fatalf("part %d of %d bytes, over the span %d", i+1, len(p.b), span)
			}
			if !bytes.Contains(body, p.b) {
				t.Fatalf("part %d, %q, is not bytes of the body", i+1, p.b)
			}
		}
		// The multipart reader reads ahead in 4 KiB buffers: past each
		// part read, never to the body's end for a long one.
		if limit := int64((maxParts+2)*(span+1) + 2*4096 + 1<<16); c.n > limit && int64(len(body)) > limit {
			t.Fatalf("read %d bytes of %d, over %d", c.n, len(body), limit)
		}
	})
}
