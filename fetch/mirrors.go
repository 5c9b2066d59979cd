package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
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

// linkRefusal says why an origin's Link (a mirror, a zsync control file)
// may not send hdig to u ("" when it may): an http URL for an https origin (integrity would hold,
// but what is downloaded would travel in clear text: the user asked for
// https), or one into the user's own network (as browsers' Private Network
// Access). It holds for the Link's URL and for every redirect hop from it.
func linkRefusal(origin, u string) string {
	switch {
	case strings.HasPrefix(origin, "https:") && strings.HasPrefix(u, "http:"):
		return "an http target of an https origin"
	case inward(origin, u):
		return "a loopback or private address named by an origin that is not"
	}
	return ""
}

// hopRuleKey marks the context of a Link mirror's requests with the
// origin whose linkRefusal each redirect hop must pass.
type hopRuleKey struct{}

// hopRefusal is the error that stops a redirect hop of a request made
// with ctx, nil if it may be followed.
func hopRefusal(ctx context.Context, u *url.URL) error {
	origin, ok := ctx.Value(hopRuleKey{}).(string)
	if !ok {
		return nil
	}
	if why := linkRefusal(origin, u.String()); why != "" {
		return fmt.Errorf("redirected to %s: %s", u.Redacted(), why)
	}
	return nil
}

// dialGuard is the net.Dialer Control that a connection to host made
// with ctx must pass, nil when none applies: for a Link mirror's requests
// (and their redirect hops) from an origin that is not inward, every
// address dialled for another host than the origin's is refused when it
// is inward (inwardAddr), however the name resolved to it. The origin's
// own name is the user's, and a proxy (proxied: host is the proxy's, at the
// port the Transport's Proxy chose) is the user's too.
func dialGuard(ctx context.Context, host string, proxied bool) func(string, string, syscall.RawConn) error {
	origin, ok := ctx.Value(hopRuleKey{}).(string)
	if !ok || inwardURL(origin) {
		return nil
	}
	o, err := url.Parse(origin)
	norm := func(h string) string { return strings.ToLower(strings.TrimSuffix(h, ".")) }
	if err != nil || norm(o.Hostname()) == norm(host) || proxied {
		return nil
	}
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || inwardAddr(ap.Addr()) {
			return &mirrorSkip{reason: fmt.Sprintf("%s resolved to %s: a loopback or private address named by an origin that is not", host, ap.Addr())}
		}
		return nil
	}
}

// inward says whether mirror is inward (inwardHost) while origin is not.
// The mirror's name is judged here; the address its connections reach,
// once resolved, is judged as it is dialled (inwardDial).
func inward(origin, mirror string) bool {
	return inwardURL(mirror) && !inwardURL(origin)
}

// inwardURL says whether raw's host is inward (inwardHost).
func inwardURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && inwardHost(u.Hostname())
}

// inwardHost says whether host names the user's own network: localhost
// and its subdomains, or an address inwardAddr counts, spelt in any form a
// URL parser passes and a resolver or curl reads as an address: besides
// the dotted quad and IPv6, inet_aton's shorthand (one to four parts, each
// decimal, 0x hex or 0-led octal: 2130706433, 127.1, 0x7f.1,
// 017700000001 are all 127.0.0.1).
func inwardHost(host string) bool {
	// A trailing dot and an IPv6 zone name the same host.
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if i := strings.IndexByte(h, '%'); i >= 0 {
		h = h[:i]
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return inwardAddr(a)
	}
	a, ok := inetAton(h)
	return ok && inwardAddr(a)
}

// inetAton parses s as inet_aton(3) does: one to four dot-separated
// parts, each decimal, 0x hex or 0-led octal, the last filling the bytes
// left.
func inetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		base := 10
		switch {
		case len(p) > 2 && (p[:2] == "0x"):
			base, p = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, p = 8, p[1:]
		}
		n, err := strconv.ParseUint(p, base, 32)
		if err != nil || p == "" || p[0] == '+' {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(4-i)) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// inwardAddr says whether a is in the user's own network: loopback,
// private (RFC 1918, fc00::/7), link-local, unspecified or "this network"
// (0.0.0.0/8), or carrier-grade NAT (100.64.0.0/10, RFC 6598); an IPv4
// address mapped into IPv6 or embedded in the IPv4-compatible or NAT64
// prefix is judged as the IPv4 address.
func inwardAddr(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		if v4, ok := embeddedV4(b); ok {
			a = v4
		}
		// Local-use NAT64 (RFC 8215) reaches IPv4 through a translator
		// of the user's network, at any prefix length.
		if b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1 {
			return true
		}
	}
	switch {
	case a.IsLoopback(), a.IsPrivate(), a.IsLinkLocalUnicast(), a.IsUnspecified():
		return true
	case a.Is4():
		b := a.As4()
		return b[0] == 0 || b[0] == 100 && b[1]&0xc0 == 64
	}
	return false
}

// embeddedV4 is the IPv4 address in an IPv4-compatible (::a.b.c.d) or
// NAT64 (64:ff9b::a.b.c.d) IPv6 address.
func embeddedV4(b [16]byte) (netip.Addr, bool) {
	compat := [12]byte{}
	nat64 := [12]byte{0, 0x64, 0xff, 0x9b}
	if p := [12]byte(b[:12]); (p == compat && (b[12] != 0 || b[13] != 0)) || p == nat64 {
		return netip.AddrFrom4([4]byte(b[12:])), true
	}
	return netip.Addr{}, false
}

// resolveMirror resolves a mirror's URL reference against the origin's URL.
func resolveMirror(origin, ref string) (string, error) {
	b, err := url.Parse(origin)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("mirror %q: %v", httpfield.Redact(ref), err)
	}
	u := b.ResolveReference(r)
	switch {
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return "", fmt.Errorf("mirror %q: want an http or https URL", u.Redacted())
	case u.User != nil:
		return "", fmt.Errorf("mirror %q: credentials in a mirror's URL are not sent", u.Redacted())
	}
	u.Fragment = ""
	return u.String(), nil
}

// CheckMirror says whether a --mirror argument is usable: an absolute http
// or https URL without credentials.
func CheckMirror(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("mirror %q: want an absolute http:// or https:// URL", httpfield.Redact(raw))
	}
	_, err = resolveMirror(raw, raw)
	return err
}

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
