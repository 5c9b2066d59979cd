package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestWithDuplicates(t *testing.T) {
	_, ts := start(t, fixture(t), WithDuplicates("http://127.0.0.1:9/m1", "https://mirror.test/a/b/"))
	r := raw(t, ts, "HEAD", "/sub/a.txt")
	got := r.Header.Values("Link")
	want := []string{"<http://127.0.0.1:9/m1/sub/a.txt>; rel=duplicate", "<https://mirror.test/a/b/sub/a.txt>; rel=duplicate"}
	var dup []string
	for _, l := range got {
		if strings.Contains(l, "rel=duplicate") {
			dup = append(dup, l)
		}
	}
	if strings.Join(dup, "\n") != strings.Join(want, "\n") {
		t.Errorf("Link of a file = %q, want %q", dup, want)
	}
	// A GET carries them too; a directory listing does not.
	if g := raw(t, ts, "GET", "/hello.json"); !strings.Contains(strings.Join(g.Header.Values("Link"), ","), "<http://127.0.0.1:9/m1/hello.json>; rel=duplicate") {
		t.Errorf("GET Link = %q, want the duplicate", g.Header.Values("Link"))
	}
	if d := raw(t, ts, "GET", "/sub/"); strings.Contains(strings.Join(d.Header.Values("Link"), ","), "duplicate") {
		t.Errorf("directory Link = %q, want no duplicate", d.Header.Values("Link"))
	}
}

func TestWithDuplicatesRefuses(t *testing.T) {
	for _, b := range []string{"ftp://h/", "/rel/", "http://u:p@h/", "http://h/?q=1", "http://h/#f", ""} {
		if _, err := New(t.TempDir(), WithDuplicates(b)); err == nil || !strings.Contains(err.Error(), "duplicate") {
			t.Errorf("WithDuplicates(%q): err %v, want a refusal naming it", b, err)
		}
	}
}

func TestWithFlippedByteEvery(t *testing.T) {
	_, ts := start(t, fixture(t), WithFlippedByteEvery(1000))
	for _, c := range []struct {
		rng  string
		flip int // index in the body, -1 none
	}{{"bytes=0-99", 0}, {"bytes=10-1009", 990}, {"bytes=1001-1500", -1}, {"bytes=2500-3500", 500}} {
		r := raw(t, ts, "GET", "/data.bin", "Range: "+c.rng)
		var a, b int64
		fmt.Sscanf(c.rng, "bytes=%d-%d", &a, &b)
		want := append([]byte(nil), binData[a:b+1]...)
		if c.flip >= 0 {
			want[c.flip] ^= 0xff
		}
		if !bytes.Equal(r.body, want) {
			t.Errorf("Range %s: body differs from the data with byte %d flipped", c.rng, c.flip)
		}
	}
	if r := raw(t, ts, "GET", "/data.bin"); len(r.body) != len(binData) || r.body[0] == binData[0] || r.body[1000] != binData[1000] {
		t.Errorf("200: want byte 0 flipped only")
	}
}
