package fetch

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// cookieURL is the URL a request's cookies are matched and stored under:
// its own, named by the host its Host field names (-H 'Host: NAME') when
// that is another: the site is that virtual host, and curl keys cookies
// by it, as its secure context.
func cookieURL(r *http.Request) *url.URL {
	if r.Host == "" || r.Host == r.URL.Host {
		return r.URL
	}
	u := *r.URL
	u.Host = r.Host
	return &u
}

// cookies are the jar's cookies for u: those responses set, and with own
// (u is the origin the user's credentials are for) the cookie file's too,
// unless a response set one of the same name.
func (j *CookieJar) cookies(u *url.URL, own bool) []*http.Cookie {
	cs := j.jar.Cookies(u)
	var mine []*http.Cookie
	if own {
		set := map[string]bool{}
		for _, c := range cs {
			set[c.Name] = true
		}
		for _, c := range j.user.Cookies(u) {
			if !set[c.Name] {
				mine = append(mine, c)
			}
		}
	}
	return sentCookies(mine, cs)
}

// What one request carries, as curl bounds it: each level of a host name
// may hold maxDomainCookies, so a deep name would be sent megabytes.
const (
	maxSentCookies  = 150
	maxCookieHeader = 8190 // name=value; pairs
)

// sentCookies is what a request carries of the jar's cookies and the
// user's, in that order (the jar's in RFC 6265's: longer paths first),
// within both bounds; the user's are counted first, so that responses
// cannot crowd them out.
func sentCookies(mine, jar []*http.Cookie) []*http.Cookie {
	n, size := 0, 0
	admit := func(cs []*http.Cookie) []*http.Cookie {
		var out []*http.Cookie
		for _, c := range cs {
			k := len(c.Name) + len(c.Value) + 2
			if n < maxSentCookies && size+k <= maxCookieHeader {
				out, n, size = append(out, c), n+1, size+k
			}
		}
		return out
	}
	mine = admit(mine)
	return append(admit(jar), mine...)
}

// store keeps the cookies a response from u sets, as RFC 6265 allows,
// within the jar's bounds (maxCookieBytes, maxDomainCookies,
// maxJarCookies): a cookie the jar does not hold yet is dropped when its
// domain or the jar is full; one it holds may be replaced.
func (j *CookieJar) store(u *url.URL, cs []*http.Cookie) {
	if len(cs) == 0 {
		return
	}
	host, ok := cookieHost(u)
	if !ok {
		return // no name a cookie file can hold
	}
	var keep []*http.Cookie
	j.mu.Lock()
	for _, c := range cs {
		if len(c.Name)+len(c.Value)+len(c.Path)+len(c.Domain) > maxCookieBytes || c.Secure && !secureContext(u) {
			continue // too large (§6.1: name, value and attributes); Secure from plain http (RFC 6265bis §5.7 step 8)
		}
		e := jarEntry{domain: host, path: c.Path, secure: c.Secure, httpOnly: c.HttpOnly, name: c.Name, value: c.Value}
		if c.Domain != "" {
			d, sub, ok := cookieDomain(host, c.Domain)
			if !ok {
				continue // the jar refuses it: not ours to write either
			}
			e.domain, e.subdomains = d, sub
		}
		if e.path == "" || !strings.HasPrefix(e.path, "/") {
			e.path = cookiePath(u, c)
		}
		switch {
		case c.MaxAge < 0:
			e.expires = -1
		case c.MaxAge > 0:
			e.expires = j.now().Unix() + int64(c.MaxAge)
		case !c.Expires.IsZero():
			e.expires = c.Expires.Unix()
		}
		if !secureContext(u) && j.shadowsSecure(e) {
			continue // plain http: a Secure cookie is left alone (RFC 6265bis §5.7 step 16)
		}
		key := e.domain + "\t" + e.path + "\t" + e.name
		old, held := j.kept[key]
		switch {
		case e.expires < 0 || e.expires != 0 && e.expires <= j.now().Unix():
			// Deleted: it frees its place, and one not held takes none.
			if held {
				delete(j.kept, key)
				if old.counted {
					j.fromResponses--
					j.perDomain[e.domain]--
				} else { // -b FILE's: no longer sent either
					j.user.SetCookies(u, []*http.Cookie{c})
				}
			}
		case held:
			e.counted = old.counted // replaced: the jar grows not
			j.kept[key] = e
		case j.fromResponses >= maxJarCookies || j.perDomain[e.domain] >= maxDomainCookies:
			continue
		default:
			e.counted = true
			j.fromResponses++
			j.perDomain[e.domain]++
			j.kept[key] = e
		}
		keep = append(keep, c)
	}
	j.mu.Unlock()
	j.jar.SetCookies(u, keep)
}

// shadowsSecure says e, set by a plain-http response, would overwrite,
// delete or shadow a Secure cookie the jar holds (the user's or an https
// response's): one of its name whose domain domain-matches e's or the
// reverse, and whose path e's path-matches (RFC 6265bis §5.7 step 16).
// j.mu is held.
func (j *CookieJar) shadowsSecure(e jarEntry) bool {
	for _, k := range j.kept {
		if k.secure && k.name == e.name && (dotSuffix(k.domain, e.domain) || dotSuffix(e.domain, k.domain)) && pathMatch(e.path, k.path) {
			return true
		}
	}
	return false
}

// dotSuffix says domain d is s or a parent of it.
func dotSuffix(s, d string) bool {
	return s == d || strings.HasSuffix(s, "."+d)
}

// pathMatch is RFC 6265 §5.1.4's: request path p path-matches cookie
// path c.
func pathMatch(p, c string) bool {
	return p == c || strings.HasPrefix(p, c) && (strings.HasSuffix(c, "/") || p[len(c)] == '/')
}

// cookieHost is u's host as a cookie file names it and net/http's jar
// keys it (its canonicalHost): without a trailing dot, each label not in
// ASCII in its punycode form ("xn--"), which Load reads back, then in
// lower case; ok false for a name a cookie file cannot hold.
func cookieHost(u *url.URL) (string, bool) {
	h := strings.TrimSuffix(u.Hostname(), ".")
	labels := strings.Split(h, ".")
	for i, l := range labels {
		if !isASCII(l) {
			p, ok := punycode(l)
			if !ok {
				return "", false
			}
			labels[i] = "xn--" + p
		}
	}
	h = strings.ToLower(strings.Join(labels, "."))
	return h, validCookieDomain(h)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// cookieDomain is what a Domain attribute gives a cookie a response from
// host sets, as net/http/cookiejar decides (RFC 6265 §5.2.3, §5.3 steps
// 5-6): the domain and whether subdomains get it too, ok false when the
// cookie is refused. The domain must domain-match the host: www.evil.test
// cannot set a cookie for victim.test, nor www.evil.co.uk one for the
// public suffix co.uk (only co.uk itself may name it: a host cookie). An
// address may name only itself, which gives a host cookie.
func cookieDomain(host, attr string) (domain string, sub, ok bool) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if net.ParseIP(host) != nil {
		return host, false, attr == host
	}
	d := strings.ToLower(strings.TrimPrefix(attr, "."))
	if d == "" || d[0] == '.' || d[len(d)-1] == '.' || !validCookieDomain(d) {
		return "", false, false
	}
	if host != d && !strings.HasSuffix(host, "."+d) {
		return "", false, false
	}
	if publicsuffix.List.PublicSuffix(d) == d { // §5.3 step 5: co.uk, github.io, test
		return host, false, host == d
	}
	return d, true, true
}

// cookiePath is RFC 6265's default-path of u when c names none.
func cookiePath(u *url.URL, c *http.Cookie) string {
	if strings.HasPrefix(c.Path, "/") {
		return c.Path
	}
	p := u.Path
	if i := strings.LastIndex(p, "/"); i > 0 {
		return p[:i]
	}
	return "/"
}
