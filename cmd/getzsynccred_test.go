package cmd

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/zsync"
)

// The control file comes from the origin the user named; its URL: line
// may name another origin. The user's -H credentials go to the first only
// (issue 9 item 9), on the zsync path as on every other.
func TestGetZsyncCredentialsStayWithTheirOrigin(t *testing.T) {
	cur := zsyncData(7, 64<<10)
	var leaked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" || r.Header.Get("Cookie") != "" {
			leaked.Add(1)
		}
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "f.bin", time.Time{}, bytes.NewReader(cur))
	}))
	defer other.Close()
	ctl, err := zsync.Make(bytes.NewReader(cur), int64(len(cur)), zsync.MakeOptions{Filename: "f.bin", URL: other.URL + "/f.bin"})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	ctl.WriteTo(&body)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body.Bytes())
	}))
	defer origin.Close()
	out := filepath.Join(t.TempDir(), "f.bin")
	code, _, errOut := runHdig(t, "get", "--zsync", "--no-cache", "-H", "Authorization: Bearer secret", "-H", "Cookie: s=1",
		"-o", out, origin.URL+"/f.bin.zsync")
	if code != ExitOK && code != ExitUnverified {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, cur) {
		t.Fatalf("rebuilt file differs: %s", errOut)
	}
	if n := leaked.Load(); n != 0 {
		t.Errorf("%d requests to the control file's other origin carried the user's credentials", n)
	}
}

// TestGetZsyncRedactsPassword: a password in the URL (sent as Basic
// credentials to its origin) is not printed: the verdict's url and the
// messages show it redacted, as on a plain download.
func TestGetZsyncRedactsPassword(t *testing.T) {
	cur := zsyncData(8, 64<<10)
	ctl, err := zsync.Make(bytes.NewReader(cur), int64(len(cur)), zsync.MakeOptions{URL: "f"})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	ctl.WriteTo(&body)
	ts := httptest.NewServer(&zsyncOrigin{body: cur, ctl: body.Bytes()})
	defer ts.Close()
	u := strings.Replace(ts.URL, "http://", "http://user:s3cret@", 1)
	out := filepath.Join(t.TempDir(), "f")
	code, stdout, errOut := runHdig(t, "get", "--zsync", "--json", "--no-cache", "-o", out, u+"/f.zsync")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(stdout+errOut, "s3cret") {
		t.Errorf("the password was printed:\n%s\n%s", stdout, errOut)
	}
}
