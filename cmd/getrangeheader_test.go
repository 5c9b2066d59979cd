package cmd

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/fetch"
)

// -H 'Range: bytes=…' asks what -r asks, and its answer is checked as
// -r's is: a 206 naming other bytes than asked was written under exit 0,
// reported strategy "full", where -r's is exit 5 and nothing written.
func TestRangeHeaderCheckedAsR(t *testing.T) {
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	wrong := rangeAnswerOrigin(t, data, "20-29")
	dst := filepath.Join(t.TempDir(), "f")
	code, _, errOut := runHdig(t, "get", "--no-cache", "-H", "Range: bytes=0-9", "-o", dst, wrong)
	if code != ExitProtocol {
		t.Errorf("another range: exit %d, want %d: %s", code, ExitProtocol, errOut)
	}
	assertNoFile(t, dst)
	assertNoFile(t, dst+fetch.PartSuffix)

	right := rangeAnswerOrigin(t, data, "0-2", "20-22")
	code, out, errOut := runHdig(t, "get", "--no-cache", "-H", "Range: bytes=0-2,20-22", "--json", "-o", dst, right)
	if v := decodeVerdict(t, out); code != 0 || v.Transfer.Strategy != "ranges" || v.Transfer.Pieces != 2 {
		t.Errorf("right ranges: exit %d, %+v; stderr %s", code, v, errOut)
	}
	assertFile(t, dst, "012klm")

	// Another unit than bytes is the user's own business: sent, not read.
	srv, seen := seeingOrigin(t, nil)
	if code, _, errOut := runHdig(t, "get", "--no-cache", "-H", "Range: items=0-9", srv.URL); code != 0 || seen.last(t).Header.Get("Range") != "items=0-9" {
		t.Errorf("items: exit %d, Range %q: %s", code, seen.last(t).Header.Get("Range"), errOut)
	}
	_ = http.StatusOK
}

// -H 'Range: …' is refused where -r is: with --parallel N (which would be
// silently ignored: a range is one request) and with --compressed (a
// range of an encoded body does not decode), each naming the Range header.
func TestRangeHeaderRefusedAsR(t *testing.T) {
	for _, args := range [][]string{
		{"-H", "Range: bytes=0-9", "--parallel", "4", "-o", "f"},
		{"-H", "Range: bytes=0-9", "--parallel", "4"},
		{"-H", "Range: bytes=0-9", "--compressed"},
		{"-H", "Range: items=0-9", "--compressed"},
		{"-r", "0-9", "--compressed"},
	} {
		dir := t.TempDir()
		if args[len(args)-1] == "f" {
			args[len(args)-1] = filepath.Join(dir, "f")
		}
		code, _, errOut := runHdig(t, append(append([]string{"get", "--no-cache"}, args...), "http://127.0.0.1:1/f")...)
		want := "a Range header"
		if args[0] == "-r" {
			want = "-r"
		}
		if code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("%q: exit %d, stderr %q; want %d naming %s", args, code, errOut, ExitUsage, want)
		}
	}
}
