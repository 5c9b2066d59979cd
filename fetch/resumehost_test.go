package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// hostsOrigin serves a file of its own to each virtual host (the Host a
// request names) under one ETag (nginx's mtime-size can be the same for two
// sites' files) and no digest: a GET without Range breaks half way until
// whole is set, a range gets a 206 of the rest.
type hostsOrigin struct {
	files map[string][]byte
	whole atomic.Bool
}

func (o *hostsOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data := o.files[strings.ToLower(r.Host)]
	h := w.Header()
	h.Set("ETag", `"v1"`)
	h.Set("Accept-Ranges", "bytes")
	a, status := 0, 200
	if rg := r.Header.Get("Range"); rg != "" {
		fmt.Sscanf(rg, "bytes=%d-", &a)
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, len(data)-1, len(data)))
		status = 206
	}
	h.Set("Content-Length", strconv.Itoa(len(data)-a))
	w.WriteHeader(status)
	if status == 200 && !o.whole.Load() {
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	w.Write(data[a:])
}

// -C under -H 'Host: NAME' resumes only a part saved for that Host: the
// sidecar was bound to the URL alone, so a part of another virtual host at
// the same address was resumed, its first half spliced to this host's
// second (released "unverified", exit 0, as neither sends a digest). A
// sidecar of the earlier format (version 1) does not say its Host: its
// part is fetched again in full, whatever the Host now.
func TestResumeOtherHostStartsOver(t *testing.T) {
	for _, old := range []bool{false, true} {
		a, b := genData(1<<18, 1), genData(1<<18, 2)
		o := &hostsOrigin{files: map[string][]byte{"a.example": a, "b.example": b}}
		srv := httptest.NewServer(o)
		defer srv.Close()
		path := filepath.Join(t.TempDir(), "f")
		c, _ := NewClient(Options{Timeout: testStall})
		get := func(host string) (*Result, error) {
			req := &Request{URL: srv.URL + "/f", Header: http.Header{"Host": {host}}, Policy: verify.DefaultPolicy()}
			return c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
		}
		if _, err := get("a.example"); err == nil {
			t.Fatal("first run: want a truncated body")
		}
		host := "b.example"
		if old {
			// As hdig wrote it before: version 1, no Host (saved for
			// a.example here, so B resumed would splice it).
			side := path + SidecarSuffix
			var m map[string]any
			raw, _ := os.ReadFile(side)
			if err := json.Unmarshal(raw, &m); err != nil || m["host"] != "a.example" {
				t.Fatalf("sidecar %s: %v; want host a.example", raw, err)
			}
			m["version"] = 1
			delete(m, "host")
			raw, _ = json.Marshal(m)
			os.WriteFile(side, raw, 0o600)
		}
		o.whole.Store(true)
		res, err := get(host)
		if err != nil {
			t.Fatalf("old %v: resume: %v", old, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, b) {
			t.Errorf("old %v: FILE is not b.example's (warnings %q): a part saved for a.example was resumed", old, res.Verdict.Warnings)
		}
	}
}

// A part saved under -H 'Host: A.example' is resumed under the same Host
// (its case aside): only the bytes missing are fetched.
func TestResumeSameHostResumes(t *testing.T) {
	a := genData(1<<18, 1)
	o := &hostsOrigin{files: map[string][]byte{"a.example": a}}
	srv := httptest.NewServer(o)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "f")
	c, _ := NewClient(Options{Timeout: testStall})
	for i, host := range []string{"A.example", "a.example"} {
		req := &Request{URL: srv.URL + "/f", Header: http.Header{"Host": {host}}, Policy: verify.DefaultPolicy()}
		res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true, Parallel: 1})
		if i == 0 {
			if err == nil {
				t.Fatal("first run: want a truncated body")
			}
			o.whole.Store(true)
			continue
		}
		if err != nil || res.Received != int64(len(a)/2) {
			t.Fatalf("resume: %v, %d bytes received (warnings %q); want the second half only", err, res.Received, res.Verdict.Warnings)
		}
		assertFileBytes(t, path, a)
	}
}
