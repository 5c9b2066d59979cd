package check

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

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
// An answer in another content coding than the GET's is another
// representation (RFC 9530 §3: Repr-Digest covers the content coding), so
// the GET's digests never apply to it: a 200 read whole is compared with
// its own bytes, any other answer is not judged (ok false).
//
// note says, for the check's message, how the reference was chosen, or,
// ok false, why r was not judged: " (…)", to follow "not judged".
func (a *audit) versionRef(ctx context.Context, r *response) (ref []verify.Digest, note string, ok bool) {
	if ce, was := r.encoding(), a.full.encoding(); ce != was {
		other := fmt.Sprintf("Content-Encoding %q, another representation than the GET's %q: its Repr-Digest covers its coded bytes, RFC 9530 §3", ce, was)
		if r.status == http.StatusOK && r.sums != nil && !r.capped && r.err == nil {
			return r.sums, fmt.Sprintf(" (compared with its own %s: it has %s)", bytesOf(r.size), other), true
		}
		return nil, fmt.Sprintf(" (it has %s, and its body was not read to compare with)", other), false
	}
	if !changed(a.full, r) {
		return a.reprSums(), "", true
	}
	g := a.getAgain(ctx)
	if g == nil {
		return nil, fmt.Sprintf(" (its ETag %s is not the GET's %s, and a second GET that would tell whether the representation changed failed)", r.header.Get("ETag"), a.full.header.Get("ETag")), false
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
	return nil, fmt.Sprintf(" (the representation changed between the GET, ETag %s, and it, ETag %s, and again after, ETag %s)", was, is, now), false
}

// getAgain sends the full GET a second time, once, and returns it when it
// is a complete 200 with its body hashed, and the bytes at the offsets of
// the GET's window kept; nil otherwise.
func (a *audit) getAgain(ctx context.Context) *response {
	if !a.againDone {
		a.againDone = true
		h := wantHeader(a.opts.Want)
		h.Set("Accept-Encoding", "identity")
		// The window the GET kept, at its offsets: range.multipart
		// compares parts with it when the representation changed.
		lo, hi := a.full.keptAt, a.full.keptAt+int64(len(a.full.kept))
		keep := func(int64) (int64, int64) { return lo, hi }
		r, err := a.do(ctx, request{label: "GET (second)", method: http.MethodGet, header: h, pick: keep, reference: true})
		if err == nil && r.status == http.StatusOK && !r.capped && r.err == nil && r.encoding() == "" {
			a.again = r
		}
	}
	return a.again
}

// judgeRepr compares f, the Repr-Digest of a response that should describe
// the GET's representation, with ref and note from versionRef: the one
// rule for a GET whose bytes failed its own Repr-Digest (repr-digest.match
// fails it). Those bytes are then not known to be the representation, nor
// is the GET's field: a member of f wrong for the bytes but equal to the
// GET's Repr-Digest says what the GET said, so a second GET (getAgain)
// tells which is the representation. Its bytes are the GET's again: they
// are, and f is wrong as the GET's field is. Else f is compared with its
// bytes. Without one, or when it returns another version (another ETag),
// f is not judged (heldBack): it is not failed for the GET's fault. A member that matches neither fails, the note saying the
// bytes it was compared with failed their own check. against is the
// digests f was compared with, what a wrong member should have been.
func (a *audit) judgeRepr(ctx context.Context, f verify.DigestField, ref []verify.Digest, note string) (o outcome, against []verify.Digest, why string, heldBack bool) {
	o = compare(f, ref)
	if len(o.wrong) == 0 || !a.getFailedItself() {
		return o, ref, note, false
	}
	if v, ok := lookup(ref, "sha-256"); !ok || !bytes.Equal(v, mustLookup(a.full.sums, "sha-256")) {
		return o, ref, note, false // another GET's bytes: the first GET's fault is not theirs
	}
	c := compare(f, a.repr.Digests)
	if len(c.wrong) > 0 || len(c.matched) == 0 {
		return o, ref, " (compared with the bytes the GET returned, which failed its own Repr-Digest)" + note, false
	}
	switch g := a.getAgain(ctx); {
	case g == nil:
		return outcome{}, nil, fmt.Sprintf(" (it matches the GET's Repr-Digest %s, not the bytes the GET returned, which failed it, and a second GET that would tell which is the representation failed)%s", strings.Join(c.matched, ", "), note), true
	case sameBytes(g, a.full):
		return o, ref, " (a second GET returned the same bytes, which failed the GET's Repr-Digest too: they are the representation)" + note, false
	case changed(a.full, g):
		// Another version by then: it tells nothing of the first one.
		return outcome{}, nil, fmt.Sprintf(" (it matches the GET's Repr-Digest %s, not the bytes the GET returned, which failed it, and a second GET that would tell which is the representation returned another version, ETag %s)%s", strings.Join(c.matched, ", "), g.header.Get("ETag"), note), true
	default:
		return compare(f, g.sums), g.sums, " (compared with a second GET's bytes: the first GET's failed its own Repr-Digest)" + note, false
	}
}

// getFailedItself reports whether the GET's body, read whole, does not
// match its own Repr-Digest.
func (a *audit) getFailedItself() bool {
	if a.full.capped || a.full.err != nil || a.full.sums == nil {
		return false
	}
	return len(compare(a.repr, a.full.sums).wrong) > 0
}

// mustLookup is lookup's value, nil when absent.
func mustLookup(ds []verify.Digest, alg string) []byte {
	v, _ := lookup(ds, alg)
	return v
}

// reprFails fails id when r, a response that should describe the
// representation the GET returned (the 304 or 200 to If-None-Match, the
// 206 to two ranges), carries a Repr-Digest, or a field outside RFC 9530
// about the representation (outsideFails), that is not of it, judged as
// every other response's Repr-Digest is (versionRef, judgeRepr), and
// reports whether it did; what could not be judged is said with id's
// result. what names r, of what it should describe.
func (a *audit) reprFails(ctx context.Context, id string, r *response, what, of string) bool {
	if a.outsideFails(ctx, id, r, what, of) {
		return true
	}
	f := r.digests(verify.ReprDigest)
	switch {
	case !f.Present, malformed(f) != "" && !a.repr.Usable(): // ignored, as the GET's: absent on both
		return false
	case malformed(f) != "":
		a.s.fail(id, fmt.Sprintf("Repr-Digest on %s is %s; want %s", what, malformed(f), a.reprWanted()))
		return true
	}
	ref, note, ok := a.versionRef(ctx, r)
	if !ok {
		a.s.note(id, fmt.Sprintf("%s's Repr-Digest was not judged%s", what, note))
		return false
	}
	o, against, note, held := a.judgeRepr(ctx, f, ref, note)
	a.asideOutside(id, what, unhashedRepr(o))
	switch {
	case held:
		a.s.note(id, fmt.Sprintf("%s's Repr-Digest was not judged%s", what, note))
	case len(o.wrong) > 0:
		a.s.fail(id, fmt.Sprintf("%s carries Repr-Digest %s, which is not of %s; want %s%s (a client compares them)", what, members(o.wrong), of, wantOf(o.wrong, against), note))
		return true
	}
	return false
}

// unhashedRepr names, for asideOutside, the members of a Repr-Digest
// judged (judgeRepr) that were not compared: of algorithms the GET's
// Repr-Digest does not name, its body, over --max-body, not hashed.
func unhashedRepr(o outcome) []string {
	if len(o.unhashed) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s (%s)", verify.ReprDigest, strings.Join(o.unhashed, ", "))}
}
