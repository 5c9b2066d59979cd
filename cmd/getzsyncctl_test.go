package cmd

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGetZsyncBadControlFile: a control file that does not parse (here a
// table cut short, then one that is not a control file at all) is a
// protocol error (exit 5) naming the problem; parsed as it arrives, it is
// never buffered whole first.
func TestGetZsyncBadControlFile(t *testing.T) {
	good := new(bytes.Buffer)
	o := &singleRangeOrigin{}
	url, _, out := singleRangeSetup(t, o)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	good.ReadFrom(resp.Body)
	resp.Body.Close()
	for _, c := range []struct {
		body []byte
		want string
	}{
		{good.Bytes()[:good.Len()-7], "whole blocks"},
		{[]byte("<html>not found</html>\n\n"), "want \"Key: value\""},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(c.body) }))
		code, _, errOut := runHdig(t, "get", "--no-cache", "--zsync", "-o", out, ts.URL+"/f.zsync")
		ts.Close()
		if code != ExitProtocol || !strings.Contains(errOut, c.want) {
			t.Errorf("control file %.20q…: exit %d, %q; want 5 and %q", c.body, code, errOut, c.want)
		}
	}
}
