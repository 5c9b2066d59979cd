package cmd

import (
	"strings"
	"testing"
)

// A request body over 1 MiB is sent with Expect: 100-continue, as curl
// sends it, so that an origin refusing it (413, 401) answers before the
// body is sent; -H 'Expect: …' is left as given, and a body of 1 MiB or
// less has none.
func TestLargeBodyExpectsContinue(t *testing.T) {
	for _, tt := range []struct {
		size int
		args []string
		want string
	}{
		{1<<20 + 1, nil, "100-continue"},
		{1 << 20, nil, ""},
		{1<<20 + 1, []string{"-H", "Expect: 100-continue"}, "100-continue"},
	} {
		srv, seen := seeingOrigin(t, nil)
		args := append([]string{"get", "-s", "--no-cache", "--data-binary", strings.Repeat("x", tt.size)}, tt.args...)
		code, _, errOut := runHdig(t, append(args, srv.URL+"/up")...)
		last := seen.last(t)
		if code != 0 || len(last.Body) != tt.size || strings.Join(last.Header.Values("Expect"), ",") != tt.want {
			t.Errorf("%d bytes %v: exit %d, %d received, Expect %q, want %q: %s", tt.size, tt.args, code, len(last.Body), last.Header.Values("Expect"), tt.want, errOut)
		}
	}
}
