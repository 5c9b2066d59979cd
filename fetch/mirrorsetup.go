package fetch

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// wholeProof says whether the whole file will be checked against a digest
// that proves it: the origin's Repr-Digest with an algorithm the policy
// accepts (after a resume, the one the sidecar recorded too: savedChecks),
// or the user's own digests. Only then may mirrors send bytes, and only
// then may a part holding a mirror's bytes be resumed (resumeTransfer).
func (d *download) wholeProof() bool {
	for _, f := range d.req.Expected {
		for _, x := range f.Digests {
			if f.Trusted || d.req.Policy.Accepts(x.Algorithm) {
				return true
			}
		}
	}
	if d.resumed && d.savedRepr != "" && d.proves(verify.ParseDigestField(verify.ReprDigest, []string{d.savedRepr})) {
		return true
	}
	return d.proves(d.ref.repr)
}

// proves says whether the Repr-Digest f has a member hdig computes with
// an algorithm the policy accepts.
func (d *download) proves(f verify.DigestField) bool {
	if !f.Usable() || f.Salvaged {
		return false
	}
	for _, x := range f.Digests {
		if _, ok := verify.Lookup(x.Algorithm); ok && d.req.Policy.Accepts(x.Algorithm) {
			return true
		}
	}
	return false
}

// mirrorSet is the sources of a download with mirrors, and the scheduler
// of its pieces (mirrorsched.go).
type mirrorSet struct {
	ctx     context.Context // the download's, for narrowing
	sources []*source       // [0] is the origin
	reports []MirrorReport  // mirrors left out before any request

	mu      sync.Mutex
	cond    *sync.Cond
	pending []*piece
	running map[*piece]*holder
	done    int
	total   int
}

// setupMirrors decides, after the origin's first response resp, which
// mirrors the download asks. It leaves d.mir nil when none is to be
// asked, and reports why when there were candidates.
func (d *download) setupMirrors(ctx context.Context, resp *http.Response) {
	cands, skipped := mirrorCandidates(d.url, d.req.URL, d.o.Mirrors, d.o.LinkMirrors, resp.Header)
	if len(cands) == 0 && len(skipped) == 0 {
		return
	}
	ms := &mirrorSet{ctx: ctx, reports: skipped, running: map[*piece]*holder{}}
	ms.cond = sync.NewCond(&ms.mu)
	ms.sources = []*source{{url: d.url, origin: true, same: true, state: MirrorUsed}}
	why := ""
	if !d.wholeProof() {
		why = "the origin sent no Repr-Digest with an accepted algorithm and no --expect was given: a mirror's bytes could not be verified"
	}
	for _, s := range cands {
		if why != "" {
			ms.reports = append(ms.reports, MirrorReport{URL: httpfield.Redact(s.url), From: s.from, State: MirrorSkipped, Reason: why})
			continue
		}
		s.state = MirrorUnused
		ms.sources = append(ms.sources, s)
	}
	if why != "" && len(cands) > 0 {
		d.warn(fmt.Sprintf("%d mirror(s) not used: %s", len(cands), why))
	}
	d.mir = ms
}

// connsPerSource spreads n connections over the sources: at least one each.
func connsPerSource(n, sources int) int {
	return max(1, (n+sources-1)/max(sources, 1))
}

// mirrorReports lists every mirror's report, for the Result.
func (d *download) mirrorReports() []MirrorReport {
	ms := d.mir
	if ms == nil {
		return nil
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	out := append([]MirrorReport(nil), ms.reports...)
	for _, s := range ms.sources[1:] {
		out = append(out, MirrorReport{URL: httpfield.Redact(s.url), From: s.from, State: s.state, Reason: s.reason,
			Bytes: s.written.size(), Pieces: s.pieces})
	}
	return out
}

// mirrorHeader is the header a mirror on another origin gets: of the
// user's fields, only User-Agent (and the Want-* fields build adds).
func mirrorHeader(h http.Header) http.Header {
	out := http.Header{}
	if ua := h.Values("User-Agent"); len(ua) > 0 {
		out["User-Agent"] = ua
	}
	return out
}

// request is the request of a piece from source s.
func (d *download) request(s *source) Request {
	r := *d.req
	if s == nil || s.origin {
		if d.url != "" {
			r.URL = d.url
		}
		return r
	}
	r.URL = s.url
	if !s.same {
		r.Header = mirrorHeader(d.req.Header)
	}
	return r
}
