package check

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/zsync"
)

// A control file the Link names on another origin is fetched without the
// user's -H credentials: they belong to the audited URL's origin.
func TestZsyncControlElsewhereGetsNoCredentials(t *testing.T) {
	body := bytes.Repeat([]byte("hdig "), 4000)
	ctl, err := zsync.Make(bytes.NewReader(body), int64(len(body)), zsync.MakeOptions{Filename: "f.bin", URL: "f.bin"})
	if err != nil {
		t.Fatal(err)
	}
	var cf bytes.Buffer
	ctl.WriteTo(&cf)
	var leaked, asked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		w.Write(cf.Bytes())
	}))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "<"+other.URL+"/f.bin.zsync>; rel=\"describedby\"; type=\"application/x-zsync\"")
		http.ServeContent(w, r, "f.bin", time.Time{}, bytes.NewReader(body))
	}))
	defer origin.Close()
	URL(context.Background(), origin.URL+"/f.bin", Options{Header: http.Header{"Authorization": {"Bearer secret"}}})
	if asked.Load() == 0 {
		t.Fatal("the control file on the other origin was never fetched")
	}
	if leaked.Load() != 0 {
		t.Errorf("%d requests to the other origin carried Authorization", leaked.Load())
	}
}

// A password in the audited URL (hdig check https://user:pass@host/…) goes
// to the origin, but not into the report: its URL and messages end up in
// CI logs, JUnit files and annotations.
func TestReportRedactsURLPassword(t *testing.T) {
	var sent atomic.Bool
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, pw, ok := r.BasicAuth(); ok && pw == "s3cret" {
				sent.Store(true)
			}
			next.ServeHTTP(w, r)
		})
	}
	u := newOrigin(t, wrap)
	u = strings.Replace(u, "http://", "http://user:s3cret@", 1) + "/doc.txt"
	rep := auditURL(t, u, Options{Zsync: true})
	if !sent.Load() {
		t.Fatal("the origin never got the URL's credentials")
	}
	var out bytes.Buffer
	WriteText(&out, []Report{rep}, false)
	WriteJUnit(&out, []Report{rep})
	WriteGitHub(&out, []Report{rep})
	WriteJSON(&out, []Report{rep})
	if strings.Contains(out.String(), "s3cret") {
		t.Errorf("the report carries the URL's password:\n%s", out.String())
	}
}
