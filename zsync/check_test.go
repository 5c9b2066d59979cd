package zsync

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	data := randomBytes(31, 10_000)
	c := mustMake(data, 1024)
	if err := c.Check(bytes.NewReader(data)); err != nil {
		t.Fatalf("Check of the file itself: %v", err)
	}
	edited := bytes.Clone(data)
	edited[3000] ^= 1
	edited[9999] ^= 1
	short := data[:9000]
	long := append(bytes.Clone(data), 0)
	for name, c2 := range map[string]struct {
		in   []byte
		want string
	}{
		"edited": {edited, "2 of 10 blocks differ from the file, the first block 2 (bytes 2048-3071)"},
		"short":  {short, "the file has 9000 bytes, the control file's Length is 10000"},
		"long":   {long, "the file has 10001 bytes"},
	} {
		err := c.Check(bytes.NewReader(c2.in))
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), c2.want) {
			t.Errorf("%s: Check = %v, want ErrMismatch and %q", name, err, c2.want)
		}
	}
	// Same blocks, other SHA-1 (a control file edited by hand).
	c.SHA1[0] ^= 1
	if err := c.Check(bytes.NewReader(data)); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "SHA-1") {
		t.Errorf("Check with a wrong SHA-1 = %v, want a SHA-1 mismatch", err)
	}
}

func TestControlLink(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{`<f.zsync>; rel="describedby"; type="application/x-zsync"`}, "f.zsync"},
		{[]string{`<a.json>; rel=describedby; type="application/json", <b%20c.zsync>; rel="alternate describedby"; type=application/x-zsync`}, "b%20c.zsync"},
		{[]string{`<x,y>; rel="next"`, `<http://h/f.zsync>;TYPE="APPLICATION/X-ZSYNC";REL=DescribedBy`}, "http://h/f.zsync"},
		{[]string{`<f.zsync>; rel="describedby"`}, ""},
		{[]string{`<f.zsync>; type="application/x-zsync"`}, ""},
		{[]string{`f.zsync; rel="describedby"; type="application/x-zsync"`}, ""},
		{[]string{`<f.zsync; rel="describedby"; type="application/x-zsync"`}, ""},
		{[]string{`<>; rel="describedby"; type="application/x-zsync"`}, ""},
		{nil, ""},
	} {
		if got := ControlLink(c.in); got != c.want {
			t.Errorf("ControlLink(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzControlLink: ControlLink never panics and returns a reference that
// appears in its input. Seeds in testdata/fuzz/FuzzControlLink.
func FuzzControlLink(f *testing.F) {
	f.Add(`<f.zsync>; rel="describedby"; type="application/x-zsync"`)
	f.Add(`<a>; rel="x\"y,z", <b>; rel=describedby; type=application/x-zsync`)
	f.Fuzz(func(t *testing.T, v string) {
		if ref := ControlLink([]string{v}); ref != "" && !strings.Contains(v, ref) {
			t.Fatalf("ControlLink(%q) = %q, not in the input", v, ref)
		}
	})
}
