package cmd

import (
	"github.com/hdig/hdig/internal/peertest"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync"
	"testing"
)

// seenRequest is what a recording origin saw of one request.
type seenRequest struct {
	Method, URI, Proto string
	Header             http.Header
	Body               []byte
}

// seeing records every request and answers with handle (default: the
// RFC 9530 example body with its Repr-Digest).
type seeing struct {
	mu   sync.Mutex
	reqs []seenRequest
}

func (s *seeing) all() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.reqs...)
}

func (s *seeing) last(t *testing.T) seenRequest {
	t.Helper()
	all := s.all()
	if len(all) == 0 {
		t.Fatal("the origin saw no request")
	}
	return all[len(all)-1]
}

func (s *seeing) reset() {
	s.mu.Lock()
	s.reqs = nil
	s.mu.Unlock()
}

func helloHandler(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Repr-Digest", helloSHA256)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, helloBody)
}

func seeingOrigin(t *testing.T, handle http.HandlerFunc) (*httptest.Server, *seeing) {
	t.Helper()
	if handle == nil {
		handle = helloHandler
	}
	s := &seeing{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, seenRequest{Method: r.Method, URI: r.RequestURI, Proto: r.Proto, Header: r.Header.Clone(), Body: body})
		s.mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, s
}

// runCurl runs curl with args (skipping the test when curl is missing).
func runCurl(t *testing.T, args ...string) {
	t.Helper()
	bin := peertest.Need(t, "curl")
	out, err := exec.Command(bin, append([]string{"-s", "-o", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("curl %v: %v\n%s", args, err, out)
	}
}
