package fetch

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"github.com/hdig/hdig/httpfield"
)

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
	h, a, ok := hostAddr(host)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	return ok && inwardAddr(a)
}

// hostAddr is host in lower case, without a trailing dot or an IPv6 zone
// (they name the same host), and the address it spells, if any: besides
// the dotted quad and IPv6, inet_aton's shorthand (inetAton).
func hostAddr(host string) (string, netip.Addr, bool) {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if i := strings.IndexByte(h, '%'); i >= 0 {
		h = h[:i]
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return h, a, true
	}
	a, ok := inetAton(h)
	return h, a, ok
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
