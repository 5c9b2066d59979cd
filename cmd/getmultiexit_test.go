package cmd

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A network failure of one URL never hides a mismatch of another.
func TestMultiExitPrefersIntegrity(t *testing.T) {
	tests := []struct {
		codes []int
		want  int
	}{
		{[]int{ExitOK, ExitOK}, ExitOK},
		{[]int{ExitNetwork, ExitIntegrity}, ExitIntegrity},
		{[]int{ExitOK, ExitNetwork, ExitUnverified}, ExitNetwork},
	}
	for _, tt := range tests {
		errs := make([]error, len(tt.codes))
		for i, c := range tt.codes {
			if c != ExitOK {
				errs[i] = withExit(c, errors.New("x"))
			}
		}
		if got := multiExit(errs); got != tt.want {
			t.Errorf("multiExit(%v) = %d, want %d", tt.codes, got, tt.want)
		}
	}
}

// -Z -O with two URLs ending in the same name would write one part file
// from two transfers at once: refused before any request.
func TestParallelURLsSameName(t *testing.T) {
	code, _, errOut := runHdig(t, "get", "-Z", "-O", "--output-dir", t.TempDir(),
		"http://127.0.0.1:1/a/x.iso", "http://127.0.0.1:2/b/x.iso")
	if code != ExitUsage || !strings.Contains(errOut, "both write x.iso") {
		t.Errorf("exit %d, %q; want 2 naming x.iso", code, errOut)
	}
}

// -Z -O -J with URLs ending in the same name (get?id=1, get?id=2: -J's
// use) must not write one hidden part file from two transfers at once:
// each file holds its own URL's verified bytes.
func TestParallelURLsSameNameJ(t *testing.T) {
	bodies := map[string]string{"1": "the first body\n", "2": "the second, longer body\n"}
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		arrived.Done()
		select { // both transfers have made their part file
		case <-both:
		case <-r.Context().Done():
			return
		}
		sum := sha256.Sum256([]byte(bodies[id]))
		w.Header().Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		w.Header().Set("Content-Disposition", `attachment; filename="file`+id+`.txt"`)
		io.WriteString(w, bodies[id])
	})
	dir := t.TempDir()
	code, _, errOut := runHdig(t, "get", "-s", "-S", "-Z", "-O", "-J", "--parallel", "1", "--output-dir", dir,
		srv.URL+"/get?id=1", srv.URL+"/get?id=2")
	if code != ExitOK {
		t.Errorf("exit %d: %s", code, errOut)
	}
	for id, body := range bodies {
		assertFile(t, filepath.Join(dir, "file"+id+".txt"), body)
	}
}
