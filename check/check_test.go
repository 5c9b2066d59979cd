package check

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
	"github.com/hdig/hdig/server/servertest"
)

// TestReferenceOrigin: against the reference origin every check passes or
// skips, and the checks that can run on each file do pass.
func TestReferenceOrigin(t *testing.T) {
	base := newOrigin(t, nil)
	tests := []struct {
		file string
		pass []string // must pass (the others may skip)
	}{
		{"hello.json", []string{"http.status", "repr-digest.present", "repr-digest.syntax", "repr-digest.algorithm",
			"repr-digest.match", "content-digest.match", "head.repr-digest", "head.content-digest", "range.partial",
			"range.content-digest", "range.repr-digest", "encoding.repr-digest", "encoding.content-digest",
			"want-repr-digest.honoured", "etag.consistency"}},
		{"doc.txt", []string{"range.partial", "encoding.repr-digest", "etag.consistency"}},
		{"blob.bin", []string{"repr-digest.match", "range.partial", "range.repr-digest"}},
		{"empty.txt", []string{"repr-digest.match", "head.repr-digest"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := auditURL(t, base+"/"+tt.file, Options{})
			if bad := append(ids(r, Fail), ids(r, Warn)...); len(bad) > 0 {
				t.Errorf("failed or warned: %v\n%s", bad, dump(r))
			}
			pass := ids(r, Pass)
			for _, id := range tt.pass {
				if !slices.Contains(pass, id) {
					t.Errorf("%s did not pass\n%s", id, dump(r))
				}
			}
		})
	}
}

// TestTrailerDigests: digests sent as trailers are found and checked.
func TestTrailerDigests(t *testing.T) {
	base := newOrigin(t, nil, server.WithTrailerDigests())
	r := auditURL(t, base+"/doc.txt", Options{})
	if bad := append(ids(r, Fail), ids(r, Warn)...); len(bad) > 0 {
		t.Errorf("failed or warned: %v\n%s", bad, dump(r))
	}
	for _, id := range []string{"repr-digest.match", "content-digest.match", "want-repr-digest.honoured"} {
		if !slices.Contains(ids(r, Pass), id) {
			t.Errorf("%s did not pass\n%s", id, dump(r))
		}
	}
}

// deltaOrigin serves v1 of a.txt, lets the delta handler record it,
// replaces it with v2 and returns the URL and v1's ETag.
func deltaOrigin(t *testing.T, wrap func(http.Handler) http.Handler) (url, etag string) {
	t.Helper()
	h, err := delta.New(filepath.Join(t.TempDir(), "state"), delta.DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := servertest.WriteFiles(t, map[string]string{"a.txt": lines(300, 1)})
	s, err := server.New(dir, server.WithDelta(h))
	if err != nil {
		t.Fatal(err)
	}
	handler := s.Handler()
	if wrap != nil {
		handler = wrap(handler)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(func() { srv.Close(); s.Close() })
	ts := srv.URL
	req, _ := http.NewRequest(http.MethodGet, ts+"/a.txt", nil)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The version is kept by the time the response has been read whole.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(lines(300, 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	return ts + "/a.txt", resp.Header.Get("ETag")
}

func TestDelta(t *testing.T) {
	tests := []struct {
		name   string
		base   BaseFunc
		etag   string // "" means v1's
		status Status
		want   string // in the message
	}{
		{"rebuilt", baseOf(lines(300, 1)), "", Pass, "Repr-Digest sha-256 matches"},
		{"no base bytes", nil, "", Pass, "not rebuilt"},
		{"wrong base bytes", baseOf(lines(300, 3)), "", Fail, "do not match Repr-Digest"},
		{"unknown base", nil, `"nope"`, Warn, "got 200 with the whole representation: the origin keeps no such version, sends no deltas, or found none smaller than the whole"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, e1 := deltaOrigin(t, nil)
			if tt.etag != "" {
				e1 = tt.etag
			}
			r := auditURL(t, url, Options{BaseETag: e1, Base: tt.base})
			got := result(r, "delta.226")
			if got.Status != tt.status || !strings.Contains(got.Message, tt.want) {
				t.Errorf("delta.226 = %s %q, want %s containing %q", got.Status, got.Message, tt.status, tt.want)
			}
			if bad := ids(r, Fail); len(bad) > 0 && tt.status != Fail {
				t.Errorf("failed: %v\n%s", bad, dump(r))
			}
		})
	}
}

// TestTimeout: an origin that never answers is cut off by the timeout and
// reported unreachable after one request, not waited on for every probe.
// The origin stalls until the client leaves, so only the timeout can end
// the audit, and the requests it got are counted rather than timed.
func TestTimeout(t *testing.T) {
	var requests atomic.Int32
	stall := func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			<-r.Context().Done()
		})
	}
	base := newOrigin(t, stall)
	r := auditURL(t, base+"/hello.json", Options{Timeout: 200 * time.Millisecond})
	if !r.Unreachable || r.Checks[0].Status != Fail || !strings.Contains(r.Checks[0].Message, "timed out") {
		t.Errorf("unreachable %v, %+v", r.Unreachable, r.Checks[0])
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the stalled origin got %d requests, want 1", n)
	}
}

// TestMaxBody: a body over --max-body skips the body checks but keeps the
// others.
func TestMaxBody(t *testing.T) {
	base := newOrigin(t, nil)
	r := auditURL(t, base+"/doc.txt", Options{MaxBody: 100})
	if bad := ids(r, Fail); len(bad) > 0 {
		t.Errorf("failed: %v\n%s", bad, dump(r))
	}
	for _, id := range []string{"repr-digest.match", "content-digest.match"} {
		if !slices.Contains(ids(r, Skip), id) {
			t.Errorf("%s not skipped\n%s", id, dump(r))
		}
	}
	if !slices.Contains(ids(r, Pass), "head.repr-digest") {
		t.Errorf("head.repr-digest did not pass\n%s", dump(r))
	}
}

func TestRunOrderAndUnreachable(t *testing.T) {
	base := newOrigin(t, nil)
	urls := []string{base + "/doc.txt", "http://127.0.0.1:1/x", base + "/hello.json"}
	rs := Run(context.Background(), urls, Options{Parallel: 2})
	for i, r := range rs {
		if r.URL != urls[i] {
			t.Errorf("report %d is for %s, want %s", i, r.URL, urls[i])
		}
		if r.Unreachable != (i == 1) {
			t.Errorf("%s: unreachable %v", r.URL, r.Unreachable)
		}
	}
}
