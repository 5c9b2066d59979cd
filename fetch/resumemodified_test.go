package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

// modifiedOrigin serves data with a Last-Modified and no strong ETag and
// no digest, as many origins do: its first answer breaks half way until
// broken is false; then http.ServeContent answers, If-Range by date
// included (ignoreIfRange drops it first: an origin that honours If-Range
// with an ETag only).
type modifiedOrigin struct {
	srv           *httptest.Server
	mu            sync.Mutex
	data          []byte
	mod           time.Time
	first         http.Header // fields of the broken first answer
	broken        atomic.Bool
	ignoreIfRange bool
	then          func()   // runs once the first answer broke
	ifRange       []string // the If-Range of each range request
	gets          atomic.Int32
}

func newModifiedOrigin(t *testing.T, data []byte, mod time.Time) *modifiedOrigin {
	o := &modifiedOrigin{data: data, mod: mod, first: http.Header{}}
	o.broken.Store(true)
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		data, mod, ignore := o.data, o.mod, o.ignoreIfRange
		if r.Header.Get("Range") != "" {
			o.ifRange = append(o.ifRange, r.Header.Get("If-Range"))
		} else {
			o.gets.Add(1)
		}
		o.mu.Unlock()
		if o.broken.CompareAndSwap(true, false) {
			for k, v := range o.first {
				w.Header()[k] = v
			}
			w.Header().Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
			w.Header().Set("Accept-Ranges", "bytes")
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.Write(data[:len(data)/2]) // the connection breaks half way
			if o.then != nil {
				o.then()
			}
			return
		}
		if ignore {
			r.Header.Del("If-Range")
		}
		http.ServeContent(w, r, "", mod, bytes.NewReader(data))
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *modifiedOrigin) change(data []byte, mod time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.data, o.mod = data, mod
}

// -C of a part whose origin sends no strong ETag: the resume asked for
// the rest with no validator (as curl -C - does), and a file changed to
// one of the same length, with no digest to tell, was spliced with the
// part and released as unverified (exit 0). The first answer's
// Last-Modified is recorded: sent as If-Range when it may be (no entity
// tag, a strong date: RFC 9110 §13.1.5, §8.8.2.2), and another one in a
// 206 is another version (versionDiffers): the file is fetched again in
// full, never spliced; the same version is still resumed.
func TestResumeLastModifiedNoSplice(t *testing.T) {
	t1 := time.Unix(1_000_000_000, 0).UTC()
	date := t1.Format(http.TimeFormat)
	for _, tc := range []struct {
		name        string
		first       http.Header // more fields of the first answer
		ignore      bool        // the origin ignores If-Range by date
		changed     bool
		wantIfRange string
		gets        int32 // requests without Range in both runs
		dropMod     bool  // the changed file is served with no Last-Modified (If-Range by date then ignored)
	}{
		{"changed, If-Range honoured", nil, false, true, date, 1, false}, // the 200 answers the range request
		{"changed, If-Range ignored", nil, true, true, date, 2, false},
		{"unchanged", nil, false, false, date, 1, false},
		{"changed, Last-Modified not strong", http.Header{"Date": {date}}, true, true, "", 2, false},
		{"changed, a weak ETag", http.Header{"Etag": {`W/"x"`}}, true, true, "", 2, false},
		{"changed, If-Range ignored, no Last-Modified in the 206", nil, true, true, date, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v1, v2 := genData(1<<20, 1), genData(1<<20, 2)
			o := newModifiedOrigin(t, v1, t1)
			o.first, o.ignoreIfRange = tc.first, tc.ignore
			path := filepath.Join(t.TempDir(), "f")
			c, _ := NewClient(Options{Timeout: testStall})
			req := &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy()}
			opts := DownloadOptions{Continue: true, Parallel: 1}
			if _, err := c.Download(context.Background(), req, path, opts); err == nil {
				t.Fatal("first run: want a broken body")
			}
			want := v1
			if tc.changed {
				o.change(v2, t1.Add(time.Hour))
				want = v2
			}
			if tc.dropMod {
				o.change(v2, time.Time{}) // http.ServeContent: no Last-Modified
			}
			res, err := c.Download(context.Background(), req, path, opts)
			got, _ := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) || o.gets.Load() != tc.gets {
				t.Errorf("resume: %v (warnings %q, %d full GETs); want %d, and FILE the origin's current file (it is: %v)",
					err, res.Verdict.Warnings, o.gets.Load(), tc.gets, bytes.Equal(got, want))
			}
			o.mu.Lock()
			defer o.mu.Unlock()
			if len(o.ifRange) != 1 || o.ifRange[0] != tc.wantIfRange {
				t.Errorf("If-Range of the range requests %q, want one %q", o.ifRange, tc.wantIfRange)
			}
		})
	}
}

// Within one run a broken stream is resumed by the same rule as -C: with
// no strong ETag, from where it broke with the Last-Modified as If-Range
// (before, it was fetched again from its start); a file changed
// meanwhile answers 200 and is fetched as one stream, never spliced.
func TestStreamResumesByLastModified(t *testing.T) {
	t1 := time.Unix(1_000_000_000, 0).UTC()
	for _, changed := range []bool{false, true} {
		t.Run(map[bool]string{false: "unchanged", true: "changed"}[changed], func(t *testing.T) {
			v1, v2 := genData(1<<20, 1), genData(1<<20, 2)
			o := newModifiedOrigin(t, v1, t1)
			want := v1
			if changed {
				o.then, want = func() { o.change(v2, t1.Add(time.Hour)) }, v2
			}
			path := filepath.Join(t.TempDir(), "f")
			c, _ := NewClient(Options{Timeout: testStall})
			req := &Request{URL: o.srv.URL, Policy: verify.DefaultPolicy(), Retry: 1, RetryDelay: time.Millisecond}
			res, err := c.Download(context.Background(), req, path, DownloadOptions{Parallel: 1})
			got, _ := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("download: %v (warnings %q); want FILE the origin's current file (it is: %v)", err, res.Verdict.Warnings, bytes.Equal(got, want))
			}
			o.mu.Lock()
			defer o.mu.Unlock()
			if date := t1.Format(http.TimeFormat); len(o.ifRange) != 1 || o.ifRange[0] != date {
				t.Errorf("If-Range of the range requests %q, want one %q", o.ifRange, date)
			}
		})
	}
}
