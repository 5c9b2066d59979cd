package cmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Several --data-binary are several bodies, where hdig sends one as is:
// keeping the last alone sent another body than the one asked for (curl
// joins them with "&"), digested and reported as a success. They are
// refused, as --data-binary beside -d is, before anything is sent.
func TestDataBinaryRepeatedRefused(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "b.bin")
	os.WriteFile(file, []byte("second"), 0o644)
	code, _, errOut := runHdig(t, "get", "-o", os.DevNull, "--data-binary", "first", "--data-binary", "@"+file, srv.URL+"/up")
	mu.Lock()
	defer mu.Unlock()
	if code != ExitUsage || len(bodies) != 0 {
		t.Fatalf("exit %d, origin received %q; want exit %d and nothing sent: %s", code, bodies, ExitUsage, errOut)
	}
	if !strings.Contains(errOut, "--data-binary") {
		t.Errorf("the error does not name --data-binary: %s", errOut)
	}
}
