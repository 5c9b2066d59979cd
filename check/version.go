package check

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hdig/hdig/verify"
)

// versionRef is what the Repr-Digest of r, a response that should describe
// the GET's representation, is compared with: the GET's digests
// (reprSums). When r's ETag is not the GET's, a second GET (made once per
// audit) tells which it is:
//   - it still carries the GET's ETag: the representation is unchanged and
//     r names it with another ETag; the GET's digests apply;
//   - it carries r's ETag: the representation changed; r is compared with
//     the digests of that GET's body;
//   - neither, but its bytes are the GET's: the ETag keeps changing, the
//     representation does not; the GET's digests apply;
//   - else, or it failed: ok is false (the representation keeps changing;
//     r cannot be judged).
//
// note says, for the check's message, how the reference was chosen.
func (a *audit) versionRef(ctx context.Context, r *response) (ref []verify.Digest, note string, ok bool) {
	if !changed(a.full, r) {
		return a.reprSums(), "", true
	}
	g := a.getAgain(ctx)
	if g == nil {
		return nil, "", false
	}
	was, is, now := a.full.header.Get("ETag"), r.header.Get("ETag"), g.header.Get("ETag")
	switch now {
	case was:
		return a.reprSums(), fmt.Sprintf(" (its ETag %s is not the GET's %s, which a second GET kept: the representation did not change)", is, was), true
	case is:
		return g.sums, fmt.Sprintf(" (the representation changed to ETag %s: compared with a second GET's body)", is), true
	}
	if sameBytes(a.full, g) {
		return a.reprSums(), fmt.Sprintf(" (its ETag %s is not the GET's %s, nor a second GET's %s, whose bytes are the GET's: the ETag keeps changing, the representation did not)", is, was, now), true
	}
	return nil, "", false
}

// getAgain sends the full GET a second time, once, and returns it when it
// is a complete 200 with its body hashed; nil otherwise.
func (a *audit) getAgain(ctx context.Context) *response {
	if !a.againDone {
		a.againDone = true
		h := wantHeader(a.opts.Want)
		h.Set("Accept-Encoding", "identity")
		r, err := a.do(ctx, request{label: "GET (second)", method: http.MethodGet, header: h, reference: true})
		if err == nil && r.status == http.StatusOK && !r.capped && r.err == nil && r.encoding() == "" {
			a.again = r
		}
	}
	return a.again
}
