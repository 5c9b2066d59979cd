package cmd

import "testing"

// -d and --data-urlencode are joined in the command line's order, as
// curl joins them: every -d went first.
func TestDataKeepsCommandLineOrder(t *testing.T) {
	srv, seen := seeingOrigin(t, nil)
	code, _, errOut := runHdig(t, "get", "-s", "--no-cache", "-d", "x=1", "--data-urlencode", "y=a&b", "-d", "z=3", srv.URL+"/form")
	if last := seen.last(t); code != 0 || string(last.Body) != "x=1&y=a%26b&z=3" {
		t.Errorf("exit %d, body %q, want %q: %s", code, last.Body, "x=1&y=a%26b&z=3", errOut)
	}
	code, _, errOut = runHdig(t, "get", "-s", "--no-cache", "-G", "--data-urlencode", "q=a b", "-d", "n=2", srv.URL+"/s")
	if last := seen.last(t); code != 0 || last.URI != "/s?q=a+b&n=2" {
		t.Errorf("-G: exit %d, %s, want /s?q=a+b&n=2: %s", code, last.URI, errOut)
	}
}

// --data-urlencode name@- reads stdin, as curl does (and @-, without a
// name), where hdig opened a file named "-".
func TestDataURLEncodeFromStdin(t *testing.T) {
	srv, seen := seeingOrigin(t, nil)
	for _, c := range []struct{ arg, want string }{{"msg@-", "msg=a+b%26c"}, {"@-", "a+b%26c"}} {
		code, _, errOut := runHdigIn(t, "a b&c", "get", "-s", "--no-cache", "--data-urlencode", c.arg, srv.URL+"/form")
		if last := seen.last(t); code != 0 || string(last.Body) != c.want {
			t.Errorf("--data-urlencode %s: exit %d, body %q, want %q: %s", c.arg, code, last.Body, c.want, errOut)
		}
	}
}
