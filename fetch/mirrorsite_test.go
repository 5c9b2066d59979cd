package fetch

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hdig/hdig/server"
)

// site is a reference origin on loopback that records what it was asked
// and how many bytes of 206 bodies it sent.
type site struct {
	ts *httptest.Server

	mu      sync.Mutex
	ranges  int           // range requests
	sent    int64         // bytes of 206 bodies
	headers []http.Header // every request's header
}

// gate holds the range requests of the sites sharing it until each of n
// mirrors among them has been asked for a range: as a plan has more
// pieces than connections, every such mirror then gets a piece, however
// the goroutines are scheduled (the test counts work, never time).
type gate struct {
	mu   sync.Mutex
	n    int
	open chan struct{}
}

func newGate(n int) *gate {
	g := &gate{n: n, open: make(chan struct{})}
	if n == 0 {
		close(g.open)
	}
	return g
}

func (g *gate) arrive() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n--; g.n == 0 {
		close(g.open)
	}
}

// countWriter counts the body bytes of a 206.
type countWriter struct {
	http.ResponseWriter
	s      *site
	status int
}

func (w *countWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *countWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	if w.status == http.StatusPartialContent {
		w.s.mu.Lock()
		w.s.sent += int64(n)
		w.s.mu.Unlock()
	}
	return n, err
}

func (w *countWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// newSite serves dir. With g, a mirror (origin false) tells g when first
// asked for a range, and every range request waits for g to open.
func newSite(t *testing.T, dir string, g *gate, origin bool, opts ...server.Option) *site {
	t.Helper()
	srv, err := server.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	s := &site{}
	first := true
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		isRange := r.Header.Get("Range") != ""
		arrived := false
		if isRange {
			s.ranges++
			arrived, first = first && !origin && g != nil, false
		}
		s.mu.Unlock()
		if arrived {
			g.arrive()
		}
		if isRange && g != nil {
			select {
			case <-g.open:
			case <-r.Context().Done():
				return
			}
		}
		srv.Handler().ServeHTTP(&countWriter{ResponseWriter: w, s: s}, r)
	}))
	t.Cleanup(func() { s.ts.Close(); srv.Close() })
	return s
}

func (s *site) counts() (ranges int, sent int64, headers []http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ranges, s.sent, append([]http.Header(nil), s.headers...)
}

// siteDir writes data as the file f (and, when sub is set, as sub/f too).
func siteDir(t *testing.T, data []byte, sub string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if sub != "" {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		os.WriteFile(filepath.Join(dir, sub, "f"), data, 0o644)
	}
	return dir
}

// mirrorReport finds the report of the mirror at url.
func mirrorReport(t *testing.T, res *Result, url string) MirrorReport {
	t.Helper()
	if res != nil {
		for _, m := range res.Mirrors {
			if m.URL == url {
				return m
			}
		}
	}
	t.Fatalf("no report for mirror %s in %+v", url, res)
	return MirrorReport{}
}
