package check

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hdig/hdig/verify"
)

// checkWant decides want-repr-digest.honoured from two preferences: the
// --want list sent with the full GET, and a probe that prefers another
// Active algorithm. Ignoring a preference is allowed, so it only warns. It
// returns the probe's response, nil when there was none.
func (a *audit) checkWant(ctx context.Context) *response {
	id := "want-repr-digest.honoured"
	if !a.repr.Usable() {
		a.s.skip(id, "GET 200 has no usable Repr-Digest")
		return nil
	}
	first := preferred(a.opts.Want)
	alt := alternative(first)
	prefs := []verify.Pref{{Algorithm: alt, Weight: 10}}
	asked := verify.FormatWant(prefs)
	h := wantHeader(prefs)
	h.Set("Accept-Encoding", "identity")
	r, err := a.do(ctx, request{label: "GET Want-Repr-Digest: " + asked, method: http.MethodGet, header: h, headersOnly: true})
	switch {
	case err != nil:
		a.s.fail(id, fmt.Sprintf("GET with Want-Repr-Digest: %s failed: %v; a preference is only a hint and must not break the request", asked, err))
		return nil
	case r.status != http.StatusOK:
		a.s.fail(id, fmt.Sprintf("GET with Want-Repr-Digest: %s returned %d; a preference is only a hint and must not change the status", asked, r.status))
		return r
	case r.err != nil:
		// The body is read when a trailer may follow it (mayTrail): broken
		// off, the trailer's Repr-Digest was never seen.
		a.s.fail(id, fmt.Sprintf("the body of GET with Want-Repr-Digest: %s broke off after %s: %v; a preference is only a hint and must not break the request", asked, bytesOf(r.size), r.err))
		return r
	}
	got := r.digests(verify.ReprDigest)
	if why := malformed(got); why != "" {
		a.s.fail(id, fmt.Sprintf("with Want-Repr-Digest: %s, Repr-Digest is %s", asked, why))
		return r
	}
	// A variant wrong only on request, compared with the representation
	// by the rule of every other response's Repr-Digest (versionRef,
	// judgeRepr: when the GET's bytes failed its own field, a second GET
	// tells which is the representation); its fields outside RFC 9530
	// about the representation too (the obsolete Digest, Unencoded-Digest,
	// x-goog-hash, x-amz-checksum-*), as hdig get compares them.
	ref, note, ok := a.versionRef(ctx, r)
	if !ok { // compared with nothing, its digests prove nothing either way
		a.s.skip(id, fmt.Sprintf("the GET with Want-Repr-Digest: %s not judged%s", asked, note))
		return r
	}
	if a.outsideFails(ctx, id, r, "the GET with Want-Repr-Digest: "+asked, "the representation") {
		return r
	}
	switch msg, held := a.identityContentWrong(ctx, id, "the GET with Want-Repr-Digest", r, ref, note); {
	case held:
		a.s.skip(id, fmt.Sprintf("with Want-Content-Digest: %s, Content-Digest not judged%s", asked, msg))
		return r
	case msg != "":
		a.s.fail(id, fmt.Sprintf("with Want-Content-Digest: %s, %s", asked, msg))
		return r
	}
	if got.Usable() {
		o, against, why, held := a.judgeRepr(ctx, got, ref, note)
		a.asideOutside(id, "the GET with Want-Repr-Digest: "+asked, unhashedRepr(o))
		switch {
		case held:
			a.s.skip(id, fmt.Sprintf("with Want-Repr-Digest: %s, Repr-Digest not judged%s", asked, why))
			return r
		case len(o.wrong) > 0:
			a.s.fail(id, fmt.Sprintf("with Want-Repr-Digest: %s, Repr-Digest %s does not match the representation; want %s%s", asked, members(o.wrong), wantOf(o.wrong, against), why))
			return r
		}
	}
	if r.capped { // read because a trailer may follow, which stays unread
		a.s.skip(id, fmt.Sprintf("the body of GET with Want-Repr-Digest: %s is larger than --max-body (%s): a Repr-Digest in its trailer was not read", asked, bytesOf(a.opts.MaxBody)))
		return r
	}
	var ignored []string
	if !hasAny(a.repr, first) {
		ignored = append(ignored, fmt.Sprintf("asked %s, got %s", verify.FormatWant(a.opts.Want), keysOf(a.repr)))
	}
	switch {
	case !got.Usable():
		ignored = append(ignored, fmt.Sprintf("asked %s, got no usable Repr-Digest", asked))
	case !hasAny(got, []string{alt}):
		ignored = append(ignored, fmt.Sprintf("asked %s, got %s", asked, keysOf(got)))
	}
	if len(ignored) > 0 {
		a.s.warn(id, fmt.Sprintf("Want-Repr-Digest ignored: %s (only a hint, but honouring it lets clients pick their algorithm)", strings.Join(ignored, "; ")))
		return r
	}
	a.s.pass(id, fmt.Sprintf("asked %s, got %s; asked %s, got %s", verify.FormatWant(a.opts.Want), keysOf(a.repr), asked, keysOf(got)))
	return r
}

// alternative returns an Active algorithm not among algs, to probe whether
// the origin follows a preference other than its default.
func alternative(algs []string) string {
	for _, alg := range verify.Algorithms {
		if alg.Status == verify.Active && !slices.Contains(algs, alg.Key) {
			return alg.Key
		}
	}
	return "sha-512"
}

// hasAny reports whether the field has a member of one of the algorithms.
func hasAny(f verify.DigestField, algs []string) bool {
	for _, d := range f.Digests {
		if slices.Contains(algs, d.Algorithm) {
			return true
		}
	}
	return false
}

// identityContentWrong describes the Content-Digest or Content-MD5 of r,
// a 200 asked for in no coding (the probe, which asks Want-Content-Digest
// for the other algorithm too), when it does not match its content, ""
// when it does or is absent: hdig get compares the answer with the bytes.
// What of it could not be compared is said with id's result, what naming
// r. An identity 200's
// content is the representation, so, its body unread, the field is held
// to ref by the rule of its Repr-Digest (judgeRepr; held: not judged, why
// says so); read whole (a trailer may follow), to its own bytes. A coded
// answer's content is not the representation's bytes: not compared.
func (a *audit) identityContentWrong(ctx context.Context, id, what string, r *response, ref []verify.Digest, note string) (why string, held bool) {
	if bad := a.md5Wrong(id, what, r, ref, note); bad != "" {
		return bad, false
	}
	f := r.digests(verify.ContentDigest)
	switch {
	case !f.Present || r.encoding() != "":
		return "", false
	case malformed(f) != "":
		return fmt.Sprintf("Content-Digest is %s", malformed(f)), false
	case r.sums != nil && !r.capped && r.err == nil:
		if differ := disagreement(r, f.Name); differ != "" {
			return differ, false
		}
		if o := compare(f, r.sums); len(o.wrong) > 0 {
			return fmt.Sprintf("Content-Digest %s does not match its %s of content; want %s", members(o.wrong), bytesOf(r.size), wantOf(o.wrong, r.sums)), false
		}
		return "", false
	}
	o, against, why, held := a.judgeRepr(ctx, f, ref, note)
	switch {
	case held:
		return why, true
	case len(o.wrong) > 0:
		return fmt.Sprintf("Content-Digest %s does not match the content, the representation; want %s%s", members(o.wrong), wantOf(o.wrong, against), why), false
	}
	return "", false
}

// md5Wrong describes r's Content-MD5 when it does not match its content,
// "" otherwise: read whole, compared with its bytes (contentMD5Wrong), as
// everywhere; its body unread, an identity answer's with the
// representation (ref), which its content is: ref without MD5 (the GET
// over --max-body was not hashed), set aside (asideOutside). What could
// not be compared is said with id's result (noteOutside).
func (a *audit) md5Wrong(id, what string, r *response, ref []verify.Digest, note string) string {
	if r.sums != nil && !r.capped && r.err == nil {
		bad, notes := contentMD5Wrong(r)
		a.noteOutside(id, what, fmt.Sprintf("its %s of content", bytesOf(r.size)), notes)
		if bad != "" {
			return fmt.Sprintf("its Content-MD5 does not match its %s of content: %s", bytesOf(r.size), bad)
		}
		return ""
	}
	if r.encoding() != "" {
		return ""
	}
	_, bad, notes, aside := judgeOutside(sectionsOf(r, contentMD5Of), ref)
	a.noteOutside(id, what, "the representation, its content", notes)
	a.asideOutside(id, what, aside)
	if len(bad) > 0 {
		return fmt.Sprintf("its Content-MD5 does not match the content, the representation: %s%s", strings.Join(bad, "; "), note)
	}
	return ""
}
