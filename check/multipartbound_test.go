package check

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readParts read every part of a 206 whole into memory, whatever its
// size: an origin answering two ranges of 100 bytes with a part of the
// whole --max-body (256 MiB by default) had it all held in memory, where
// the spool to a temporary file had kept memory flat. A part is read no
// further than the span asked, nor a part beyond one more than asked for.
func TestReadPartsBounded(t *testing.T) {
	const span = 200
	big := strings.Repeat("x", 256<<10)
	var many strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&many, "--B\r\nContent-Range: bytes %d-%d/9999\r\n\r\nab\r\n", 2*i, 2*i+1)
	}
	many.WriteString("--B--\r\n")
	multi := http.Header{"Content-Type": {"multipart/byteranges; boundary=B"}}
	for _, tt := range []struct {
		name string
		h    http.Header
		body string
	}{
		{"single part", http.Header{"Content-Range": {"bytes 0-262143/262144"}}, big},
		{"multipart part", multi, "--B\r\nContent-Range: bytes 0-262143/262144\r\n\r\n" + big + "\r\n--B--\r\n"},
		{"many parts", multi, many.String()},
	} {
		c := &countingReader{r: bytes.NewReader([]byte(tt.body))}
		parts, err := readParts(tt.h, c, span, 2)
		if c.n > 16<<10 || len(parts) > 3 {
			t.Errorf("%s: read %d bytes and %d parts (%v), want at most 16 KiB and 3", tt.name, c.n, len(parts), err)
		}
	}
}
