package check

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
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
