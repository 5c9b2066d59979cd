package fetch

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestMirrorCandidates: which mirrors a download asks, and what it reports
// left out, from --mirror and the origin's Link.
func TestMirrorCandidates(t *testing.T) {
	link := func(vs ...string) http.Header { return http.Header{"Link": vs} }
	for _, c := range []struct {
		name    string
		origin  string
		given   []string
		link    int
		h       http.Header
		want    []string // URLs asked, in order
		skipped []string // substrings of the reasons of those left out
	}{
		{"relative and absolute Link targets, the origin and repeats once", "https://o.test/d/f", nil, 4,
			link(`<../m/f>; rel=duplicate, <https://m1.test/f>; rel="duplicate", <https://o.test/d/f>; rel=duplicate`, `<https://m1.test/f>; rel=duplicate, <https://x.test/f>; rel=next`),
			[]string{"https://o.test/m/f", "https://m1.test/f"}, nil},
		{"given first, then the Link up to its cap", "http://o.test/f", []string{"http://g.test/f"}, 1,
			link(`<http://a.test/f>; rel=duplicate, <http://b.test/f>; rel=duplicate`),
			[]string{"http://g.test/f", "http://a.test/f"}, nil},
		{"cap 0 takes no Link", "http://o.test/f", nil, 0, link(`<http://a.test/f>; rel=duplicate`), nil, nil},
		{"refused: credentials, another scheme, http for https", "https://o.test/f", nil, 4,
			link(`<https://u:p@a.test/f>; rel=duplicate, <ftp://b.test/f>; rel=duplicate, <http://c.test/f>; rel=duplicate`),
			nil, []string{"credentials", "want an http or https URL", "an http target of an https origin"}},
		{"refused: a public origin's Link into the user's network", "http://o.test/f", nil, 8,
			link(`<http://127.0.0.1:8080/f>; rel=duplicate, <http://10.1.2.3/f>; rel=duplicate, <http://[fe80::1]/f>; rel=duplicate, <http://localhost/f>; rel=duplicate, <http://192.0.2.1/f>; rel=duplicate`),
			[]string{"http://192.0.2.1/f"}, []string{"loopback or private", "loopback or private", "loopback or private", "loopback or private"}},
		{"refused: the same addresses spelt with a zone or a trailing dot", "http://o.test/f", nil, 8,
			link(`<http://[fe80::1%25eth0]/f>; rel=duplicate, <http://localhost./f>; rel=duplicate, <http://a.localhost./f>; rel=duplicate`),
			nil, []string{"loopback or private", "loopback or private", "loopback or private"}},
		{"a loopback origin may name loopback mirrors; the user may name any", "http://127.0.0.1:1/f", []string{"http://10.0.0.1/f"}, 4,
			link(`<http://127.0.0.1:2/f>; rel=duplicate`), []string{"http://10.0.0.1/f", "http://127.0.0.1:2/f"}, nil},
		{"an http mirror the user gives for an https origin is theirs to choose", "https://o.test/f", []string{"http://c.test/f"}, 0, nil,
			[]string{"http://c.test/f"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cands, skipped := mirrorCandidates(c.origin, c.origin, c.given, c.link, c.h)
			var got []string
			for _, s := range cands {
				got = append(got, s.url)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("asked %q, want %q", got, c.want)
			}
			if len(skipped) != len(c.skipped) {
				t.Fatalf("left out %+v, want %d", skipped, len(c.skipped))
			}
			for i, r := range skipped {
				if r.State != MirrorSkipped || !strings.Contains(r.Reason, c.skipped[i]) || strings.Contains(r.URL, "u:p@") {
					t.Errorf("left out %+v, want skipped for %q, no password shown", r, c.skipped[i])
				}
			}
		})
	}
	var many []string
	for i := range MaxMirrors + 2 {
		many = append(many, fmt.Sprintf("http://m%d.test/f", i))
	}
	cands, skipped := mirrorCandidates("http://o.test/f", "http://o.test/f", many, 0, nil)
	if len(cands) != MaxMirrors || len(skipped) != 2 {
		t.Errorf("%d mirrors given: %d asked, %d left out; want %d and 2", len(many), len(cands), len(skipped), MaxMirrors)
	}
}

func TestConnsPerSource(t *testing.T) {
	for _, c := range []struct{ n, sources, want int }{{4, 4, 1}, {1, 4, 1}, {8, 3, 3}, {16, 5, 4}, {4, 1, 4}} {
		if got := connsPerSource(c.n, c.sources); got != c.want {
			t.Errorf("connsPerSource(%d, %d) = %d, want %d", c.n, c.sources, got, c.want)
		}
	}
}

// TestInward: the addresses a public origin's Link may not send hdig to,
// in every spelling a URL parser takes and a resolver or curl reads as
// that address (inet_aton's shorthand: one to four parts, each decimal,
// 0x hex or 0-led octal), and the ranges beside loopback and RFC 1918
// that are the user's own network too.
func TestInward(t *testing.T) {
	for _, h := range []string{
		"127.0.0.1", "2130706433", "127.1", "0x7f.1", "017700000001", "0x7f000001", "0177.0.0.1", "127.0.0.01",
		"127.1.", "0x7F.0X0.0.1", "10.1", "0xa000001", "192.168.1", "169.254.169.254", "0xa9fea9fe",
		"100.64.0.1", "100.127.255.254", "0.0.0.0", "0", "0.1.2.3", "[fc00::1]", "[fd12::1]", "[::ffff:127.0.0.1]",
		"[::ffff:7f00:1]", "[::ffff:10.0.0.1]", "[::1]", "[::]", "[fe80::1%25lo]", "localhost", "x.localhost",
		"[64:ff9b:1::a00:1]", "[64:ff9b:1:ffff::8.8.8.8]",
	} {
		if !inward("http://o.test/f", "http://"+h+"/f") {
			t.Errorf("%s: not counted inward", h)
		}
	}
	for _, h := range []string{
		"192.0.2.1", "8.8.8.8", "134744072", "0x8080808", "100.128.0.1", "100.63.255.255", "1.2.3.4.5",
		"127.0.0.1.example", "0x7f.example", "[2001:db8::1]", "[::ffff:8.8.8.8]", "o.test", "256.0.0.1", "08.0.0.1",
	} {
		if inward("http://o.test/f", "http://"+h+"/f") {
			t.Errorf("%s: counted inward", h)
		}
	}
	if inward("http://2130706433/f", "http://127.0.0.1/f") {
		t.Error("an origin at 127.0.0.1 spelt as one number counted public")
	}
}
