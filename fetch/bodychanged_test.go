package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A file body (-T FILE, --data-binary @FILE) is read twice: once for the
// Content-Digest and Repr-Digest sent in the header, once as it is sent.
// A file rewritten in between (same size) was sent with the digests of
// its old bytes, and an origin that does not check them stored the new
// ones: exit 0, a digest claimed that was not the body's. The bytes sent
// are hashed as they go, and the request fails before the last of them
// when they are not the bytes digested.
func TestFileBodyChangedWhileSent(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err == nil {
			mu.Lock()
			got = append(got, string(b))
			mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "up.bin")
	os.WriteFile(file, []byte(strings.Repeat("a", 100)), 0o644)
	body, err := FileBody(file)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := NewClient(Options{Timeout: testStall})
	req := &Request{URL: srv.URL + "/up", Method: http.MethodPut, Policy: verify.DefaultPolicy(), Body: body,
		OnRequest: func(*http.Request) { os.WriteFile(file, []byte(strings.Repeat("b", 100)), 0o644) }}
	_, err = c.Do(context.Background(), req, DiscardSink{})
	mu.Lock()
	defer mu.Unlock()
	if err == nil || len(got) != 0 {
		t.Fatalf("error %v, origin received %d whole bodies (%.10q); want an error and none", err, len(got), got)
	}
	if !errors.Is(err, ErrInput) || !strings.HasPrefix(err.Error(), "request body: "+file+" changed") {
		t.Errorf("error %q is not the file's, saying it changed", err)
	}
}
