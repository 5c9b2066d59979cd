package zsync

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// rangeServer serves fixed files with single and multiple byte ranges,
// writing multipart/byteranges with the CRLF before the first boundary
// that zsync 0.6.2 needs. It counts the range bytes it sent.
type rangeServer struct {
	files map[string][]byte
	mu    sync.Mutex
	sent  int64 // body bytes of 206 responses (range data only)
	reqs  int   // requests with a Range
	all   int   // all requests
}

// maxRequests bounds a test: zsync 0.6.2 retries a response it cannot use
// forever (chunked bodies, multipart without the leading CRLF).
const maxRequests = 500

func (s *rangeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.all++
	runaway := s.all > maxRequests
	s.mu.Unlock()
	body, ok := s.files[r.URL.Path]
	if !ok || runaway { // a client in a retry loop gets 404 and stops
		http.NotFound(w, r)
		return
	}
	spec, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes=")
	if !ok {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
		return
	}
	ranges, err := parseRanges(spec, int64(len(body)))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestedRangeNotSatisfiable)
		return
	}
	s.mu.Lock()
	s.reqs++
	for _, rg := range ranges {
		s.sent += rg.Len()
	}
	s.mu.Unlock()
	if len(ranges) == 1 {
		rg := ranges[0]
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rg.Start, rg.End-1, len(body)))
		w.Header().Set("Content-Length", strconv.FormatInt(rg.Len(), 10))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(body[rg.Start:rg.End])
		return
	}
	const boundary = "zsyncTestBoundary"
	var mp bytes.Buffer
	for _, rg := range ranges {
		fmt.Fprintf(&mp, "\r\n--%s\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes %d-%d/%d\r\n\r\n", boundary, rg.Start, rg.End-1, len(body))
		mp.Write(body[rg.Start:rg.End])
	}
	fmt.Fprintf(&mp, "\r\n--%s--\r\n", boundary)
	w.Header().Set("Content-Type", "multipart/byteranges; boundary="+boundary)
	w.Header().Set("Content-Length", strconv.Itoa(mp.Len()))
	w.WriteHeader(http.StatusPartialContent)
	w.Write(mp.Bytes())
}

// parseRanges parses "a-b,c-d" (no suffix or open ranges: zsync sends none).
func parseRanges(spec string, size int64) ([]Range, error) {
	var out []Range
	for _, part := range strings.Split(spec, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(part), "-")
		first, err1 := strconv.ParseInt(a, 10, 64)
		last, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || first > last || first >= size {
			return nil, fmt.Errorf("bad range %q", part)
		}
		out = append(out, Range{first, min(last+1, size)})
	}
	return out, nil
}

func newRangeServer(t *testing.T, files map[string][]byte) (*rangeServer, *httptest.Server) {
	s := &rangeServer{files: files}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}
