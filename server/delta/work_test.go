package delta

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/server"
)

// Recording a version costs a bounded number of index entries read or
// written, however many files have history: a crawl of n new files is O(n),
// not O(n²), also when every recording pushes an older version out.
func TestRecordingWorkBounded(t *testing.T) {
	const n = 300
	dir := t.TempDir()
	h, err := New(filepath.Join(t.TempDir(), "state"), DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxTotal(100 * 64) // room for about 100 of the 300 files
	srv, err := server.New(dir, server.WithDelta(h))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for i := range n {
		name := fmt.Sprintf("f%03d.bin", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("%064d", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := indexWork.Load()
	for i := range n {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", fmt.Sprintf("/f%03d.bin", i), nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d", rec.Code)
		}
	}
	h.Wait()
	work := indexWork.Load() - before
	t.Logf("%d index entries read or written for %d recordings", work, n)
	if work > 10*n {
		t.Errorf("recording %d versions read or wrote %d index entries, want at most %d", n, work, 10*n)
	}
	blobs, _ := filepath.Glob(filepath.Join(h.dir, "blobs", "*"))
	if len(blobs) < 90 || len(blobs) > 100 {
		t.Errorf("%d versions kept, want about 100 within the budget", len(blobs))
	}
}

// headerSpy runs onHeader when the response header is written.
type headerSpy struct {
	*httptest.ResponseRecorder
	onHeader func()
}

func (s *headerSpy) WriteHeader(code int) {
	if s.onHeader != nil {
		s.onHeader()
		s.onHeader = nil
	}
	s.ResponseRecorder.WriteHeader(code)
}

func (s *headerSpy) Write(p []byte) (int, error) {
	if s.onHeader != nil {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseRecorder.Write(p)
}

// The first GET of a new version does not copy it into history before the
// first byte: the copy runs beside the response, which ends once the
// version is kept.
func TestRecordingOffFirstByte(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	v1 := text(20000, 1)
	o.put(v1)
	srv, err := server.New(o.dir, server.WithDelta(o.h))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	gate := make(chan struct{})
	recordGate = gate
	defer func() { recordGate = nil }()
	before := recordedBytes.Load()
	atHeader := int64(-1)
	rec := &headerSpy{ResponseRecorder: httptest.NewRecorder(), onHeader: func() {
		atHeader = recordedBytes.Load() - before
		close(gate)
	}}
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/a.txt", nil))
	if atHeader != 0 {
		t.Errorf("%d bytes copied into history before the first byte, want 0", atHeader)
	}
	if got := recordedBytes.Load() - before; got != int64(len(v1)) {
		t.Errorf("%d bytes recorded by the end of the response, want %d", got, len(v1))
	}
}
