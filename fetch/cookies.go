package fetch

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// CookieJar is -b FILE and -c FILE: cookies bound to the hosts and paths
// that set them (RFC 6265, net/http/cookiejar's rules), read from and
// written to curl's Netscape cookie file format. The client's one
// RoundTripper (credentialGuard) adds them to each request and stores what
// each response sets.
type CookieJar struct {
	user *cookiejar.Jar // -b FILE's: sent to the user's origin only
	jar  *cookiejar.Jar // set by responses
	now  func() time.Time

	mu            sync.Mutex
	kept          map[string]jarEntry // domain, path, name -> latest cookie
	fromResponses int                 // how many of kept responses added
	perDomain     map[string]int      // how many of those for each domain
}

// jarEntry is one cookie as a cookie file line holds it.
type jarEntry struct {
	domain     string // without a leading dot
	subdomains bool   // a Domain cookie: also sent to subdomains
	path       string
	secure     bool
	httpOnly   bool
	expires    int64 // Unix seconds; 0 is a session cookie
	name       string
	value      string
	counted    bool // set by a response and counted in the bounds
}

// NewCookieJar is an empty jar.
func NewCookieJar() *CookieJar {
	// New never fails. The public suffix list makes net/http's jar refuse
	// what cookieDomain refuses.
	user, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	jar, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	return &CookieJar{user: user, jar: jar, now: time.Now, kept: map[string]jarEntry{}, perDomain: map[string]int{}}
}

// What the jar keeps of what responses set: RFC 6265 §6.1's minimums a
// user agent should support, as the bounds of what a server may make it
// hold (curl bounds its jar alike since CVE-2022-32205).
const (
	maxCookieBytes   = 4096 // one cookie's name and value
	maxDomainCookies = 50   // one domain's
	maxJarCookies    = 3000 // all
)

// maxCookieLine bounds one line of a cookie file.
const maxCookieLine = 64 << 10

// Load reads a Netscape cookie file ("# Netscape HTTP Cookie File"):
// lines of domain, include-subdomains, path, secure, expiry, name, value,
// separated by tabs; "#HttpOnly_" before the domain marks HttpOnly. Expired
// cookies are skipped; a malformed line is an error naming it.
func (j *CookieJar) Load(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxCookieLine)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		httpOnly := false
		if rest, ok := strings.CutPrefix(line, "#HttpOnly_"); ok {
			line, httpOnly = rest, true
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseCookieLine(line)
		if err != nil {
			return fmt.Errorf("cookie file line %d: %v", n, err)
		}
		e.httpOnly = httpOnly
		if e.expires != 0 && e.expires <= j.now().Unix() {
			continue
		}
		j.set(e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("cookie file: %w", err)
	}
	return nil
}

func parseCookieLine(line string) (jarEntry, error) {
	f := strings.Split(line, "\t")
	if len(f) == 6 {
		f = append(f, "") // curl writes an empty value without its tab at times
	}
	if len(f) != 7 {
		return jarEntry{}, fmt.Errorf("want 7 tab-separated fields, got %d", len(f))
	}
	exp, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil || exp < 0 {
		return jarEntry{}, fmt.Errorf("expiry %q: want Unix seconds", f[4])
	}
	domain := strings.ToLower(strings.TrimPrefix(f[0], "."))
	if !validCookieDomain(domain) {
		return jarEntry{}, fmt.Errorf("domain %q: want a host name or address", f[0])
	}
	if !validCookieText(f[5], "=\"\\") || f[5] == "" || !validCookieText(f[6], "") {
		return jarEntry{}, fmt.Errorf("cookie %q: want a name without spaces, ';' or '=', and a value without ';' or control characters", f[5])
	}
	path := f[2]
	if !strings.HasPrefix(path, "/") {
		path = "/"
	}
	return jarEntry{domain: domain, subdomains: strings.EqualFold(f[1], "TRUE"), path: path,
		secure: strings.EqualFold(f[3], "TRUE"), expires: exp, name: f[5], value: f[6]}, nil
}

// validCookieDomain: letters, digits, '.', '-', '_', and an IPv6
// address's ':' and brackets.
func validCookieDomain(d string) bool {
	if d == "" || d[0] == '.' || strings.Trim(d, ".-_:[]") == "" {
		return false
	}
	for _, r := range d {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:[]", r)
		if !ok {
			return false
		}
	}
	return true
}

// validCookieText refuses control characters and ';' (a name: also
// white space and the characters of also).
func validCookieText(s, also string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == ';' || strings.ContainsRune(also, r) || (also != "" && r == ' ') {
			return false
		}
	}
	return true
}

// set puts e into the jar as the response of its own host would have.
func (j *CookieJar) set(e jarEntry) {
	scheme := "http"
	if e.secure {
		scheme = "https"
	}
	c := &http.Cookie{Name: e.name, Value: e.value, Path: e.path, Secure: e.secure, HttpOnly: e.httpOnly}
	if e.subdomains {
		c.Domain = e.domain
	}
	if e.expires != 0 {
		c.Expires = time.Unix(e.expires, 0)
	}
	u := &url.URL{Scheme: scheme, Host: e.domain, Path: e.path}
	j.user.SetCookies(u, []*http.Cookie{c})
	j.mu.Lock()
	j.kept[e.domain+"\t"+e.path+"\t"+e.name] = e
	j.mu.Unlock()
}
