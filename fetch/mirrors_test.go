package fetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// mirrorSpec is one mirror of a table case.
type mirrorSpec struct {
	data   []byte // nil: the origin's bytes
	opts   []server.Option
	down   bool // its address refuses connections
	gated  bool // the origin waits until it was asked for a range
	state  string
	reason string // a substring of its report's reason
}

var flipEvery = server.WithFlippedByteEvery(64 << 10)

func mirrorRequest(url string) *Request {
	return &Request{URL: url, Policy: verify.DefaultPolicy(),
		WantRepr: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}, WantContent: []verify.Pref{{Algorithm: "sha-256", Weight: 10}}}
}

// TestDownloadMirrors: pieces come from the origin and the mirrors; the
// file is the origin's whatever a mirror sends, a liar is named corrupt and
// its pieces fetched elsewhere, another version is skipped before any of
// its bytes is written, a mirror that is down is skipped.
func TestDownloadMirrors(t *testing.T) {
	data := genData(pieceTestSize, 1)
	good := mirrorSpec{gated: true, state: MirrorUsed}
	for _, tc := range []struct {
		name    string
		mirrors []mirrorSpec
	}{
		{"all good", []mirrorSpec{good, good, good}},
		{"liar with piece digests", []mirrorSpec{good,
			{opts: []server.Option{flipEvery}, gated: true, state: MirrorCorrupt, reason: "Content-Digest crc32c mismatch"}}},
		{"liar without piece digests", []mirrorSpec{
			{opts: []server.Option{server.WithoutDigests()}, gated: true, state: MirrorUsed},
			{opts: []server.Option{server.WithoutDigests(), flipEvery}, gated: true, state: MirrorCorrupt, reason: "found by fetching its"}}},
		{"another version", []mirrorSpec{good,
			{data: genData(pieceTestSize, 2), gated: true, state: MirrorSkipped, reason: "Repr-Digest sha-256 differs"},
			{data: genData(pieceTestSize+1, 1), gated: true, state: MirrorSkipped, reason: "length 2097930, not the 2097929: another version"}}},
		{"mirror down", []mirrorSpec{good, {down: true, state: MirrorSkipped, reason: "refused"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, m := range tc.mirrors {
				if m.gated {
					n++
				}
			}
			g := newGate(n)
			origin := newSite(t, siteDir(t, data, ""), g, true)
			var sites []*site
			var urls []string
			for _, m := range tc.mirrors {
				d := m.data
				if d == nil {
					d = data
				}
				var gm *gate
				if m.gated {
					gm = g
				}
				s := newSite(t, siteDir(t, d, ""), gm, false, m.opts...)
				if m.down {
					s.ts.Close()
				}
				sites, urls = append(sites, s), append(urls, s.ts.URL+"/f")
			}
			c, _ := NewClient(Options{Timeout: testStall})
			path := filepath.Join(t.TempDir(), "f")
			opts := pieceOpts
			opts.Mirrors = urls
			res, err := c.Download(context.Background(), mirrorRequest(origin.ts.URL+"/f"), path, opts)
			if err != nil {
				t.Fatalf("Download: %v (mirrors %+v)", err, res.Mirrors)
			}
			assertFileBytes(t, path, data)
			if !res.Verdict.Verified(verify.ReprDigest) {
				t.Errorf("verdict %v: want Repr-Digest verified", res.Verdict.Checks)
			}
			var kept int64
			for i, m := range tc.mirrors {
				rep := mirrorReport(t, res, urls[i])
				ranges, sent, _ := sites[i].counts()
				if rep.State != m.state || !strings.Contains(rep.Reason, m.reason) {
					t.Errorf("mirror %d: %s %q, want %s %q", i, rep.State, rep.Reason, m.state, m.reason)
				}
				if m.gated && ranges == 0 {
					t.Errorf("mirror %d was never asked for a range", i)
				}
				if rep.Bytes > sent {
					t.Errorf("mirror %d: %d bytes of it kept, but it sent %d", i, rep.Bytes, sent)
				}
				if m.state != MirrorUsed && rep.Bytes != 0 {
					t.Errorf("mirror %d (%s): %d bytes of it kept, want none", i, rep.State, rep.Bytes)
				}
				if m.state == MirrorCorrupt && !hasWarning(res, urls[i]) {
					t.Errorf("no warning names the corrupt mirror %s: %q", urls[i], res.Verdict.Warnings)
				}
				kept += rep.Bytes
			}
			if kept > int64(len(data)) {
				t.Errorf("mirrors' bytes kept %d, more than the file's %d", kept, len(data))
			}
		})
	}
}

// A mirror's wrong bytes that cannot be replaced by the origin's (the
// write back fails) are the output's error (exit 2), not a mismatch:
// nothing is released, and the error says why.
func TestMirrorRepairWriteFails(t *testing.T) {
	path, _, err := failedRepair(t, false)
	if !errors.Is(err, ErrOutput) || errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("Download: %v; want the output's error, not a mismatch", err)
	}
	if _, serr := os.Stat(path); !os.IsNotExist(serr) {
		t.Errorf("%s exists after the failed repair (%v)", path, serr)
	}
}

// failedRepair downloads from an origin and two mirrors without digests,
// one of which flips bytes, with the write-back of the origin's bytes
// failing; with -C when cont.
func failedRepair(t *testing.T, cont bool) (string, *Result, error) {
	data := genData(pieceTestSize, 1)
	g := newGate(2)
	origin := newSite(t, siteDir(t, data, ""), g, true)
	good := newSite(t, siteDir(t, data, ""), g, false, server.WithoutDigests())
	liar := newSite(t, siteDir(t, data, ""), g, false, server.WithoutDigests(), flipEvery)
	defer func(w func(*os.File, []byte, int64) (int, error)) { writeBack = w }(writeBack)
	writeBack = func(*os.File, []byte, int64) (int, error) { return 0, errors.New("no space left on device") }
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")
	opts := pieceOpts
	opts.Continue = cont
	opts.Mirrors = []string{good.ts.URL + "/f", liar.ts.URL + "/f"}
	res, err := c.Download(context.Background(), mirrorRequest(origin.ts.URL+"/f"), path, opts)
	return path, res, err
}

func hasWarning(res *Result, s string) bool {
	for _, w := range res.Verdict.Warnings {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// TestCheckMirrorRedacts: a --mirror URL that does not parse is named
// without its password.
func TestCheckMirrorRedacts(t *testing.T) {
	if err := CheckMirror("http://u:secret@h/%zz"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("CheckMirror: %v: want an error without the password", err)
	}
}

// With -C, a failure that does not prove the bytes wrong keeps the part
// to resume; a failed repair of a mirror's wrong bytes follows a whole
// that did not match: the part holds bytes known wrong, and it is not
// kept (a resume would hash them again and, without a Repr-Digest in the
// resume answer, could release them as merely unverified).
func TestMirrorRepairWriteFailsKeepsNoPart(t *testing.T) {
	path, res, err := failedRepair(t, true)
	if !errors.Is(err, ErrOutput) {
		t.Fatalf("Download: %v; want the output's error", err)
	}
	if res != nil && res.Part != "" {
		t.Errorf("Result.Part %q: a part of known-wrong bytes offered for -C", res.Part)
	}
	for _, p := range []string{path, path + PartSuffix, path + SidecarSuffix} {
		if _, serr := os.Stat(p); !os.IsNotExist(serr) {
			t.Errorf("%s exists after the failed repair (%v)", p, serr)
		}
	}
}
