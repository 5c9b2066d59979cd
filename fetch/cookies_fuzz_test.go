package fetch

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzCookieFile: any cookie file loads or fails with an error naming its
// line, and what loads saves to a file that loads again to the same.
func FuzzCookieFile(f *testing.F) {
	f.Add(cookieFile)
	f.Add("#HttpOnly_.example.com\tTRUE\t/\tTRUE\t4102444800\tn\tv\n")
	f.Add("h\tFALSE\t/\tFALSE\t0\tn\n")
	f.Add("h\tFALSE\t\tFALSE\t-1\tn\tv\n")
	f.Fuzz(func(t *testing.T, s string) {
		j := NewCookieJar()
		if err := j.Load(strings.NewReader(s)); err != nil {
			if !strings.Contains(err.Error(), "line") && !strings.Contains(err.Error(), "cookie file") {
				t.Fatalf("error %q names no line", err)
			}
			return
		}
		var a, b bytes.Buffer
		j.Save(&a)
		j2 := NewCookieJar()
		if err := j2.Load(bytes.NewReader(a.Bytes())); err != nil {
			t.Fatalf("saved jar does not load: %v\n%s", err, a.String())
		}
		j2.Save(&b)
		if a.String() != b.String() {
			t.Fatalf("save, load, save differs:\n%s\n%s", a.String(), b.String())
		}
	})
}
