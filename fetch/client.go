package fetch

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hdig/hdig/dictionary"
)

// Options configure a Client.
type Options struct {
	// FollowRedirects follows 3xx responses (-L).
	FollowRedirects bool
	// Insecure skips TLS verification (-k).
	Insecure bool
	// CACert is a PEM file of extra roots (--cacert).
	CACert string
	// Timeout bounds connecting, waiting for the response header, and any
	// stall while reading the body. 0 means DefaultTimeout.
	Timeout time.Duration
	// Transport replaces the default transport (tests).
	Transport http.RoundTripper
	// Connection are curl's connection options (proxy, resolve, -4/-6,
	// HTTP version, rate limit).
	Connection Connection
	// MaxRedirects bounds the redirects followed (--max-redirs); nil is 20,
	// a negative value no bound.
	MaxRedirects *int
	// Jar, when set, holds the cookies of -b FILE and -c FILE.
	Jar *CookieJar
}

// DefaultTimeout is used when Options.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// Client sends hdig's requests.
type Client struct {
	http    *http.Client
	timeout time.Duration
}

// NewClient builds a client. Go's transparent gzip is off: hdig must see the
// bytes the digests cover.
func NewClient(o Options) (*Client, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rt := o.Transport
	if rt == nil {
		tlsConf := &tls.Config{InsecureSkipVerify: o.Insecure}
		if o.CACert != "" {
			pool, err := certPool(o.CACert, "--cacert")
			if err != nil {
				return nil, err
			}
			tlsConf.RootCAs = pool
		}
		t, err := o.Connection.transport(tlsConf, timeout)
		if err != nil {
			return nil, err
		}
		rt = t
	}
	c := &http.Client{Transport: credentialGuard{rt: rt, jar: o.Jar, rate: o.Connection.LimitRate}}
	limit := 20
	if o.MaxRedirects != nil {
		limit = *o.MaxRedirects
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !o.FollowRedirects {
			return http.ErrUseLastResponse
		}
		if limit >= 0 && len(via) > limit {
			s := "s"
			if limit == 1 {
				s = ""
			}
			return &redirectError{fmt.Errorf("more than %d redirect%s (--max-redirs %d): not following %s", limit, s, limit, req.URL.Redacted())}
		}
		if err := hopRefusal(req.Context(), req.URL); err != nil {
			return &redirectError{err}
		}
		if err := redirectBody(req, via); err != nil {
			return &redirectError{err}
		}
		if err := cleartextBody(req, via); err != nil {
			return &redirectError{err}
		}
		if f := redirectHook(req.Context()); f != nil && req.Response != nil {
			f(req.Response, len(via))
		}
		return nil
	}
	return &Client{http: c, timeout: timeout}, nil
}

// HTTP returns the underlying client.
func (c *Client) HTTP() *http.Client { return c.http }

// credentialFields are the request fields that carry the user's
// credentials. They go only to the origin they were given for. RFC 9842's
// Available-Dictionary and Dictionary-ID are among them: "clients MUST
// treat dictionaries in the same way that they treat cookies" (§10), and a
// dictionary is offered only to its own origin. So is -H 'Host: NAME' (a
// virtual host of the origin given; build sends it as the request's Host):
// another host gets its own name.
var credentialFields = []string{"Authorization", "Cookie", "Proxy-Authorization", fieldAvailableDictionary, fieldDictionaryID, "Host"}

// credentialsKey marks a context: the credentials of the requests made with
// it belong to this origin.
type credentialsKey struct{}

// CredentialsFor returns ctx recording that the user's credentials (-H
// Authorization and Cookie, URL userinfo) were given for rawURL's origin:
// every request made with it, to whatever URL (a control file's, a
// checksum file's, a Link target), carries them only to that origin. A
// caller that makes several Client calls for one user request sets it
// once, with the URL the user gave.
func CredentialsFor(ctx context.Context, rawURL string) context.Context {
	return withCredentialsFor(ctx, rawURL)
}

// withCredentialsFor records, unless ctx already names one, that the
// credentials of the requests made with ctx were given for rawURL's origin.
// Every Client entry point calls it with the URL the user gave, so that
// requests to where a redirect led (range pieces, retries, resumes, HEADs,
// a delta's fallback) do not carry them.
func withCredentialsFor(ctx context.Context, rawURL string) context.Context {
	if _, ok := ctx.Value(credentialsKey{}).(string); ok {
		return ctx
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return ctx
	}
	return context.WithValue(ctx, credentialsKey{}, originOf(u))
}

// credentialGuard is the one place that decides which credentials a request
// carries, on every request hdig sends, redirect hops included: the user's
// Authorization, Cookie and Proxy-Authorization (and the URL's userinfo,
// which net/http has turned into Authorization by now) go only to the
// origin they were given for. An origin is scheme, host and port (curl
// CVE-2022-27776; net/http alone keeps them for another port, another
// scheme and subdomains, and Proxy-Authorization everywhere). Without a
// mark in the context, the credentials belong to the origin of the first
// request of the redirect chain.
//
// The cookie jar's cookies are added here too: those of -b FILE are the
// user's, so they follow the origin rule and then RFC 6265's host and path
// rules; those responses set follow RFC 6265 (and are stored here). --limit-rate paces each body read.
type credentialGuard struct {
	rt   http.RoundTripper
	jar  *CookieJar
	rate int64
}

func (g credentialGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	r := asSent(req)
	if g.jar != nil {
		if cs := g.jar.cookies(cookieURL(r), ownOrigin(req)); len(cs) > 0 {
			if r == req {
				r = req.Clone(req.Context())
			}
			for _, c := range cs {
				r.AddCookie(c)
			}
		}
	}
	if f := sentHook(req.Context()); f != nil {
		f(r)
	}
	resp, err := g.rt.RoundTrip(r)
	if err == nil && refusedExpect(r, resp) {
		resp, err = g.withoutExpect(r, resp)
	}
	if err != nil {
		return resp, err
	}
	if g.jar != nil {
		g.jar.store(cookieURL(r), resp.Cookies())
	}
	if g.rate > 0 {
		resp.Body = limitRate(resp.Body, g.rate)
	}
	return resp, nil
}

// sentHookKey marks a context with Request.OnRequest: credentialGuard
// calls it with each request as it goes out (credentials removed, jar
// cookies added, redirect hops included), so that -v shows what is sent.
type sentHookKey struct{}

// withSentHook returns ctx carrying f; a nil f leaves ctx as it is.
func withSentHook(ctx context.Context, f func(*http.Request)) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, sentHookKey{}, f)
}

func sentHook(ctx context.Context) func(*http.Request) {
	f, _ := ctx.Value(sentHookKey{}).(func(*http.Request))
	return f
}

// asSent is req as credentialGuard lets it go: without the credentials
// when it is for another origin than theirs.
// A dictionary hdig offers also goes only to the URLs its match pattern
// covers (offerCovers): a redirect within the origin may leave it. The
// cached versions it offers go only to their URL's origin (basesWithheld).
// A redirect hop carries the Referer of the chain's first request, the
// user's (-e), or none: not the one net/http makes up from the previous
// hop's URL, which would tell the next host that URL, query and all (a
// signed URL's signature, an access_token). curl sends none without
// -e ';auto' (WithAutoReferer: then the previous hop's URL).
func asSent(req *http.Request) *http.Request {
	own := ownOrigin(req)
	dictOff := req.Header.Get(fieldAvailableDictionary) != "" && !offerCovers(req)
	basesOff := basesWithheld(req)
	referer, madeUp := userReferer(req)
	if auto, ok := autoReferer(req); ok {
		referer, madeUp = auto, req.Header.Get("Referer") != auto || len(req.Header.Values("Referer")) > 1
	}
	// -H Host names the origin's virtual host on each of its requests:
	// net/http keeps a request's Host across a relative Location only, so
	// a hop to the same origin by an absolute one lost it.
	hostLost := own && req.Host == "" && req.Header.Get("Host") != ""
	if !dictOff && !basesOff && !madeUp && !hostLost && (own || (!hasCredentials(req.Header) && req.URL.User == nil)) {
		return req
	}
	r := req.Clone(req.Context())
	if hostLost {
		r.Host = req.Header.Get("Host")
	}
	if madeUp {
		r.Header.Del("Referer")
		if referer != "" {
			r.Header.Set("Referer", referer)
		}
	}
	if r.Header.Get(fieldAvailableDictionary) != "" && (dictOff || !own) {
		withoutDictCodings(r.Header)
		r.Header.Del(fieldAvailableDictionary)
		r.Header.Del(fieldDictionaryID)
	}
	if basesOff {
		withoutBaseOffer(r.Header)
	}
	if !own {
		for _, f := range credentialFields {
			r.Header.Del(f)
		}
		r.URL.User = nil
		r.Host = ""
	}
	return r
}

// withoutDictCodings takes dcb and dcz out of h's Accept-Encoding: a
// request whose Available-Dictionary was withheld has no dictionary, and
// RFC 9842 §6.1 has a client advertise them only with one.
func withoutDictCodings(h http.Header) {
	var keep []string
	for _, v := range h.Values("Accept-Encoding") {
		for _, c := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(c, ";")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case dictionary.CodingDCB, dictionary.CodingDCZ:
			default:
				if strings.TrimSpace(c) != "" {
					keep = append(keep, strings.TrimSpace(c))
				}
			}
		}
	}
	if len(keep) == 0 {
		h.Del("Accept-Encoding")
		return
	}
	h.Set("Accept-Encoding", strings.Join(keep, ", "))
}

// ownOrigin says req goes to the origin the credentials were given for.
func ownOrigin(req *http.Request) bool {
	owner, ok := req.Context().Value(credentialsKey{}).(string)
	if !ok {
		owner = originOf(firstOf(req).URL)
	}
	return originOf(req.URL) == owner
}

// firstOf is the first request of req's redirect chain (req itself when
// it is no redirect hop).
func firstOf(req *http.Request) *http.Request {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	return first
}

// userReferer is the Referer the request of req's redirect chain was
// given ("" for none), and whether req carries another.
func userReferer(req *http.Request) (string, bool) {
	first := firstOf(req)
	if first == req {
		return "", false
	}
	ref := first.Header.Get("Referer")
	return ref, req.Header.Get("Referer") != ref || len(req.Header.Values("Referer")) > 1
}

// autoRefererKey marks a context: its redirect hops carry the previous
// hop's URL as Referer (WithAutoReferer).
type autoRefererKey struct{}

// WithAutoReferer returns ctx under which a redirect hop carries the URL
// of the request it follows as Referer, as curl's -e ';auto' asks: without
// its userinfo and fragment, and none from https to http.
func WithAutoReferer(ctx context.Context) context.Context {
	return context.WithValue(ctx, autoRefererKey{}, true)
}

// autoReferer is the Referer a redirect hop carries under WithAutoReferer;
// ok is false for a first request or without it.
func autoReferer(req *http.Request) (string, bool) {
	if on, _ := req.Context().Value(autoRefererKey{}).(bool); !on || req.Response == nil || req.Response.Request == nil {
		return "", false
	}
	prev := *req.Response.Request.URL
	if prev.Scheme == "https" && req.URL.Scheme == "http" {
		return "", true
	}
	prev.User, prev.Fragment, prev.RawFragment = nil, "", ""
	return prev.String(), true
}

func hasCredentials(h http.Header) bool {
	for _, f := range credentialFields {
		if _, ok := h[f]; ok {
			return true
		}
	}
	return false
}

// SameOrigin reports whether two URLs have the same origin (scheme, host,
// port; default ports spelled out), the unit user credentials belong to.
func SameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && originOf(ua) == originOf(ub)
}

// IsCredential reports whether a request field carries the user's
// credentials (Authorization, Cookie, Proxy-Authorization).
func IsCredential(field string) bool {
	for _, f := range credentialFields {
		if http.CanonicalHeaderKey(field) == f {
			return true
		}
	}
	return false
}

// originOf is a URL's origin (RFC 6454 §4): scheme, host and port, lower
// case, the scheme's default port spelled out.
func originOf(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
