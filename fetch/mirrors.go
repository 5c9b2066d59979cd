package fetch

import (
	"fmt"
	"net/http"
	"time"

	"github.com/hdig/hdig/httpfield"
)

// Mirrors (hdig get --mirror, Link rel=duplicate of RFC 6249). The origin's
// first response is the authority: its length, ETag and Repr-Digest name
// the representation, and the whole file is checked against that
// Repr-Digest (or the user's --expect) whoever sent the bytes. A mirror
// only ever answers plain range requests for pieces:
//
//   - it is used only when there is such a digest: without one, a mirror's
//     bytes could not be told from an attacker's, so no mirror is asked
//     and each is reported skipped (the origin alone serves the file);
//   - a mirror whose 206 names another length, another Repr-Digest, or (on
//     the origin's own origin, where ETags are comparable) another ETag,
//     or that answers a range with 200, is skipped before any byte of it
//     is written; on another origin its ETag is its own (ETags are scoped
//     to their server), kept as its If-Range validator only;
//   - a piece failing the mirror's Content-Digest names the mirror corrupt,
//     drops it, and the piece is fetched again elsewhere; without piece
//     digests, a whole-file mismatch is narrowed by fetching each mirror's
//     bytes again from the origin and comparing (narrow);
//   - a mirror on another origin gets none of the user's -H fields nor
//     credentials (credentialGuard strips Authorization, Cookie and
//     Proxy-Authorization; mirrorHeader drops the other -H fields, which
//     may carry keys too); User-Agent and Want-* are sent.

// Bounds of the mirrors a download uses.
const (
	// MaxMirrors bounds --mirror and the Link mirrors together.
	MaxMirrors = 16
	// DefaultLinkMirrors is how many rel=duplicate mirrors of the
	// origin's response are taken by default (--max-mirrors).
	DefaultLinkMirrors = 4
)

// Mirror states, as MirrorReport.State and the JSON name them.
const (
	MirrorUsed    = "used"    // served pieces that verified
	MirrorUnused  = "unused"  // checked nothing against: no piece was left for it
	MirrorSkipped = "skipped" // never used: another version, no ranges, unreachable, or nothing to verify against
	MirrorDropped = "dropped" // failed mid-way (network, protocol); its pieces went elsewhere
	MirrorCorrupt = "corrupt" // served wrong bytes; dropped, its pieces fetched elsewhere
)

// MirrorReport is what one mirror did in a download.
type MirrorReport struct {
	URL    string `json:"url"`
	From   string `json:"from"` // "option" (--mirror) or "link" (rel=duplicate)
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Bytes  int64  `json:"bytes"`  // bytes of it kept in the file
	Pieces int    `json:"pieces"` // pieces it completed
}

// source is the origin or one mirror of a download.
type source struct {
	url    string
	from   string
	origin bool
	same   bool   // on the origin the user's credentials are for
	etag   string // a mirror's own strong validator, once seen

	// Guarded by mirrorSet.mu.
	state, reason string
	written       spans         // bytes it wrote that are still in the file
	moved         int64         // bytes it delivered, for its speed
	busy          time.Duration // time its connections spent on them
	pieces        int
	gone          bool
}

// rate is a source's measured bytes per second per connection; 0 until it
// has delivered.
func (s *source) rate() float64 {
	if s.busy <= 0 || s.moved <= 0 {
		return 0
	}
	return float64(s.moved) / s.busy.Seconds()
}

// mirrorCandidates are the mirrors to try: the user's, then the origin's
// Link rel=duplicate targets (at most link of them), resolved against the
// origin's URL, http or https only (a Link's not http for an https
// origin, nor on a loopback or private address for an origin that is not),
// without credentials in the URL, duplicates and the origin itself left
// out; at most MaxMirrors in all.
// What is left out is reported.
// same marks a mirror on owner's origin, the one the user's credentials
// are for.
func mirrorCandidates(origin, owner string, given []string, link int, h http.Header) (cands []*source, skipped []MirrorReport) {
	seen := map[string]bool{origin: true}
	add := func(ref, from string) bool {
		u, err := resolveMirror(origin, ref)
		switch {
		case err != nil:
			skipped = append(skipped, MirrorReport{URL: httpfield.Redact(ref), From: from, State: MirrorSkipped, Reason: err.Error()})
		case seen[u]:
			return false
		case from == "link" && linkRefusal(origin, u) != "":
			skipped = append(skipped, MirrorReport{URL: u, From: from, State: MirrorSkipped, Reason: linkRefusal(origin, u)})
		case len(cands) == MaxMirrors:
			skipped = append(skipped, MirrorReport{URL: u, From: from, State: MirrorSkipped, Reason: fmt.Sprintf("more than %d mirrors", MaxMirrors)})
		default:
			seen[u] = true
			cands = append(cands, &source{url: u, from: from, same: SameOrigin(u, owner)})
		}
		return true
	}
	for _, m := range given {
		add(m, "option")
	}
	taken := 0
	for _, ref := range httpfield.LinksWithRel(h.Values("Link"), "duplicate", MaxMirrors*4) {
		if taken >= link {
			break
		}
		if add(ref, "link") {
			taken++
		}
	}
	return cands, skipped
}
