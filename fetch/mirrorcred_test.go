package fetch

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// TestMirrorsGetNoCredentials: the user's Authorization, Cookie and other
// -H fields go to the origin and to a mirror on the origin's own origin,
// never to a mirror on another origin.
func TestMirrorsGetNoCredentials(t *testing.T) {
	data := genData(pieceTestSize, 1)
	g := newGate(2)
	// The origin (and the mirror on its origin, /copy/f) answers ranges
	// once both mirrors on other origins were asked.
	origin := newSite(t, siteDir(t, data, "copy"), g, true)
	gated := newSite(t, siteDir(t, data, ""), g, false)
	other := newSite(t, siteDir(t, data, ""), g, false)
	c, _ := NewClient(Options{Timeout: testStall})
	req := mirrorRequest(origin.ts.URL + "/f")
	req.Header = http.Header{"Authorization": {"Bearer s3cret"}, "Cookie": {"session=s3cret"},
		"X-Api-Key": {"s3cret"}, "User-Agent": {"hdig-test"}}
	opts := pieceOpts
	opts.Mirrors = []string{other.ts.URL + "/f", origin.ts.URL + "/copy/f", gated.ts.URL + "/f"}
	res, err := c.Download(context.Background(), req, filepath.Join(t.TempDir(), "f"), opts)
	if err != nil {
		t.Fatalf("Download: %v", err)
	}
	if rep := mirrorReport(t, res, origin.ts.URL+"/copy/f"); rep.State == MirrorSkipped {
		t.Errorf("same-origin mirror skipped: %s", rep.Reason)
	}
	for _, s := range []*site{other, gated} {
		ranges, _, headers := s.counts()
		if ranges == 0 {
			t.Fatalf("mirror %s was never asked", s.ts.URL)
		}
		for _, h := range headers {
			for _, k := range []string{"Authorization", "Cookie", "X-Api-Key"} {
				if v := h.Get(k); v != "" {
					t.Errorf("mirror on another origin got %s: %q", k, v)
				}
			}
			if ua := h.Get("User-Agent"); ua != "hdig-test" {
				t.Errorf("mirror got User-Agent %q, want the user's", ua)
			}
		}
	}
	_, _, headers := origin.counts()
	for _, h := range headers {
		if h.Get("Authorization") != "Bearer s3cret" || h.Get("X-Api-Key") != "s3cret" {
			t.Errorf("origin (or same-origin mirror) request without the user's fields: %v", h)
		}
	}
}

// TestMirrorsFromLink: the origin's Link rel=duplicate names mirrors; at
// most LinkMirrors of them are taken, in order, and the others are never
// asked; LinkMirrors 0 takes none.
func TestMirrorsFromLink(t *testing.T) {
	data := genData(pieceTestSize, 1)
	for _, tc := range []struct{ link, used int }{{4, 4}, {2, 2}, {0, 0}} {
		t.Run(fmt.Sprint("cap ", tc.link), func(t *testing.T) {
			g := newGate(tc.used)
			var mirrors []*site
			var bases []string
			for i := range 5 {
				var gm *gate
				if i < tc.used {
					gm = g
				}
				m := newSite(t, siteDir(t, data, ""), gm, false)
				mirrors, bases = append(mirrors, m), append(bases, m.ts.URL+"/")
			}
			// The first mirror twice: it counts once.
			origin := newSite(t, siteDir(t, data, ""), g, true, server.WithDuplicates(append([]string{bases[0], bases[0]}, bases[1:]...)...))
			c, _ := NewClient(Options{Timeout: testStall})
			opts := pieceOpts
			opts.LinkMirrors = tc.link
			res, err := c.Download(context.Background(), mirrorRequest(origin.ts.URL+"/f"), filepath.Join(t.TempDir(), "f"), opts)
			if err != nil {
				t.Fatalf("Download: %v", err)
			}
			if !res.Verdict.Verified(verify.ReprDigest) {
				t.Errorf("verdict %v", res.Verdict.Checks)
			}
			for i, m := range mirrors {
				ranges, _, _ := m.counts()
				if asked := ranges > 0; asked != (i < tc.used) {
					t.Errorf("mirror %d: asked %v (%d ranges), want %v", i, asked, ranges, i < tc.used)
				}
				if i < tc.used {
					if rep := mirrorReport(t, res, m.ts.URL+"/f"); rep.From != "link" || rep.State != MirrorUsed {
						t.Errorf("mirror %d: %+v, want used, from link", i, rep)
					}
				}
			}
			if len(res.Mirrors) != tc.used {
				t.Errorf("%d mirror reports, want %d: %+v", len(res.Mirrors), tc.used, res.Mirrors)
			}
		})
	}
}

// TestMirrorsNeedProof: without a Repr-Digest from the origin, a mirror is
// never asked (its bytes could not be verified) and is reported skipped;
// with the user's --expect it is used.
func TestMirrorsNeedProof(t *testing.T) {
	data := genData(pieceTestSize, 1)
	for _, expect := range []bool{false, true} {
		t.Run(fmt.Sprint("expect ", expect), func(t *testing.T) {
			g := newGate(0)
			if expect {
				g = newGate(1)
			}
			origin := newSite(t, siteDir(t, data, ""), g, true, server.WithoutDigests())
			m := newSite(t, siteDir(t, data, ""), g, false)
			c, _ := NewClient(Options{Timeout: testStall})
			req := mirrorRequest(origin.ts.URL + "/f")
			if expect {
				sum := verify.NewHasher([]verify.Algorithm{mustAlg(t, "sha-256")})
				sum.Write(data)
				req.Expected = []verify.DigestField{{Name: "--expect", Present: true, Trusted: true, Digests: sum.Sums()}}
				sum.Close()
			}
			opts := pieceOpts
			opts.Mirrors = []string{m.ts.URL + "/f"}
			path := filepath.Join(t.TempDir(), "f")
			res, err := c.Download(context.Background(), req, path, opts)
			if err != nil {
				t.Fatalf("Download: %v", err)
			}
			assertFileBytes(t, path, data)
			rep := mirrorReport(t, res, m.ts.URL+"/f")
			ranges, _, headers := m.counts()
			if expect {
				if rep.State != MirrorUsed || ranges == 0 {
					t.Errorf("with --expect: mirror %s after %d ranges, want used", rep.State, ranges)
				}
				return
			}
			if rep.State != MirrorSkipped || !strings.Contains(rep.Reason, "could not be verified") || len(headers) != 0 {
				t.Errorf("without a digest: mirror %s %q after %d requests, want skipped before any", rep.State, rep.Reason, len(headers))
			}
		})
	}
}

func mustAlg(t *testing.T, key string) verify.Algorithm {
	t.Helper()
	a, ok := verify.Lookup(key)
	if !ok {
		t.Fatalf("no algorithm %s", key)
	}
	return a
}
