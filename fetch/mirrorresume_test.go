package fetch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// cancelOnPiece cancels the download once a piece other than the first
// (the origin's 200) is done.
type cancelOnPiece struct {
	NoProgress
	once   sync.Once
	cancel context.CancelFunc
}

func (p *cancelOnPiece) Piece(id int, size, done int64) PieceProgress {
	return pieceDoneHook{func(ok bool) {
		if ok && id > 0 {
			p.once.Do(p.cancel)
		}
	}}
}

type pieceDoneHook struct{ done func(bool) }

func (pieceDoneHook) Add(int)        {}
func (h pieceDoneHook) Done(ok bool) { h.done(ok) }

// TestResumeMirroredPartWithoutProof: mirrors are asked only when the
// whole file will be checked against a proof (here the user's --expect;
// the origin sends no digest). A run interrupted after a mirror's piece
// landed leaves that piece in the part; resumed with -C without --expect,
// nothing checked the mirror's bytes, and the file was released as
// "unverified" (exit 0) holding another version's bytes from the mirror:
// the very splice the rule forbids. The mirror's bytes are not resumed
// without a proof: the file is the origin's.
func TestResumeMirroredPartWithoutProof(t *testing.T) {
	for _, proof := range []bool{false, true} {
		t.Run(map[bool]string{false: "no proof", true: "--expect"}[proof], func(t *testing.T) {
			resumeMirrored(t, proof)
		})
	}
}

// resumeMirrored interrupts a run whose pieces come from a mirror of
// another version (the origin's ranges wait), then resumes it with -C,
// with or without --expect.
func resumeMirrored(t *testing.T, proof bool) {
	data := genData(pieceTestSize, 1)
	closed := newGate(1) // the origin's ranges wait: only the mirror serves pieces
	origin := newSite(t, siteDir(t, data, ""), closed, true, server.WithoutDigests())
	mirror := newSite(t, siteDir(t, genData(pieceTestSize, 2), ""), nil, false)
	c, _ := NewClient(Options{Timeout: testStall})
	path := filepath.Join(t.TempDir(), "f")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := mirrorRequest(origin.ts.URL + "/f")
	req.Expected = append(req.Expected, expectField(data, false))
	opts := pieceOpts
	opts.Mirrors = []string{mirror.ts.URL + "/f"}
	opts.Progress = &cancelOnPiece{cancel: cancel}
	if _, err := c.Download(ctx, req, path, opts); err == nil {
		t.Fatal("the first run was not interrupted")
	}
	if _, sent, _ := mirror.counts(); sent == 0 {
		t.Fatal("the mirror sent no piece")
	}
	if _, err := os.Stat(path + SidecarSuffix); err != nil {
		t.Fatalf("no sidecar after the interrupt: %v", err)
	}

	closed.arrive() // the origin answers ranges now
	opts = pieceOpts
	opts.Continue = true
	req = mirrorRequest(origin.ts.URL + "/f")
	if proof {
		req.Expected = append(req.Expected, expectField(data, false))
	}
	res, err := c.Download(context.Background(), req, path, opts)
	got, _ := os.ReadFile(path)
	if err == nil && !bytes.Equal(got, data) {
		t.Fatalf("released %d bytes, not the origin's (outcome %s, warnings %q)", len(got), res.Outcome(), res.Verdict.Warnings)
	}
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if proof != (res.Outcome() == verify.Verified) || proof && hasWarning(res, "holds bytes of mirrors") {
		t.Errorf("outcome %s, warnings %q", res.Outcome(), res.Verdict.Warnings)
	}
}
