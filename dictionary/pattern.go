package dictionary

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrRegexpGroup marks a match pattern with a regular-expression group:
// RFC 9842 §2.1.1 says such a pattern is invalid and MUST NOT be used.
var ErrRegexpGroup = errors.New("URL pattern has a regexp group")

// ErrUnsupported marks URL-pattern syntax outside the subset this package
// implements (see CompilePattern).
var ErrUnsupported = errors.New("URL pattern syntax not supported")

// Pattern is a compiled "match" value: an origin and glob patterns for the
// path and, when the pattern names one, the query.
type Pattern struct {
	base   string   // origin of the URL the dictionary came from
	origin string   // scheme://host[:port] the pattern names
	path   []string // literal pieces; a "*" wildcard lies between each two
	query  []string // nil: any query (the pattern named none)
}

// CompilePattern builds the URL pattern "match" with baseURL set to the URL
// the dictionary was fetched from (RFC 9842 §2.1.1). It implements this
// subset of the URL Pattern Standard, and refuses the rest:
//
//   - the pattern is a path ("/app/*/main.js"), a path relative to the base
//     URL's directory ("*.js"), a query alone ("?v=*", path = the base's), or
//     an absolute URL with a literal scheme, host and port (which match
//     nothing unless they are the base URL's origin);
//   - in the path and the query, "*" matches any run of characters
//     (including "/"), "\" makes the next character literal, and every other
//     character is literal, percent-encoded as the URL parser would;
//   - a "?" starts the query; a pattern without one matches any query;
//   - "(" (a regexp group) makes the pattern invalid (ErrRegexpGroup);
//     named groups (":name"), "{...}", "+", a second "?", "#" and userinfo,
//     wildcards in scheme, host or port, and "." or ".." path segments are
//     ErrUnsupported.
//
// Matching is case-sensitive on the percent-encoded path and query.
func CompilePattern(match string, base *url.URL) (*Pattern, error) {
	if match == "" {
		return nil, fmt.Errorf("match: want a URL pattern, got an empty string: %w", ErrUnsupported)
	}
	if len(match) > MaxMatchLen {
		return nil, fmt.Errorf("match: want at most %d characters, got %d", MaxMatchLen, len(match))
	}
	if base == nil || base.Scheme == "" || base.Host == "" {
		return nil, errors.New("match: want an absolute base URL, got none")
	}
	p := &Pattern{base: originOf(base)}
	p.origin = p.base
	rest := match
	if scheme, after, ok := splitScheme(match); ok {
		host, tail := cutAny(after, "/?")
		if strings.ContainsAny(scheme+host, `*(){}@\`) || hasNamedGroup(host) {
			return nil, fmt.Errorf("match %q: scheme, host and port must be literal: %w", match, ErrUnsupported)
		}
		u, err := url.Parse(scheme + "://" + host + "/")
		if err != nil {
			return nil, fmt.Errorf("match %q: bad origin: %v", match, err)
		}
		p.origin = originOf(u)
		rest = tail
		if rest == "" || rest[0] == '?' {
			rest = "/" + rest
		}
	}
	pathPat, queryPat, hasQuery, err := splitQuery(rest)
	if err != nil {
		return nil, fmt.Errorf("match %q: %w", match, err)
	}
	if p.path, err = compileGlob(absolutePath(pathPat, base), pathEncode); err != nil {
		return nil, fmt.Errorf("match %q: %w", match, err)
	}
	if hasDotSegment(p.path) {
		return nil, fmt.Errorf("match %q: \".\" and \"..\" path segments: %w", match, ErrUnsupported)
	}
	if hasQuery {
		if p.query, err = compileGlob(queryPat, queryEncode); err != nil {
			return nil, fmt.Errorf("match %q: %w", match, err)
		}
	}
	return p, nil
}

// absolutePath is the path part of a pattern made absolute against base,
// as the URL Pattern Standard resolves it: none is base's path, a relative
// one is prefixed with base's directory (both escaped as literals).
func absolutePath(pathPat string, base *url.URL) string {
	switch {
	case pathPat == "":
		return escapeLiteral(requestPath(base))
	case pathPat[0] != '/':
		dir := requestPath(base)
		return escapeLiteral(dir[:strings.LastIndexByte(dir, '/')+1]) + pathPat
	}
	return pathPat
}

// AbsolutePattern is match, a pattern CompilePattern takes, with its path
// made absolute against base, so that it compiles to the same pattern
// against any base URL of the origin: "*.js" against
// http://h/assets/app.js is "/assets/*.js". A pattern with a scheme, or
// one CompilePattern refuses, is returned as it is.
func AbsolutePattern(match string, base *url.URL) string {
	if _, _, ok := splitScheme(match); ok || base == nil {
		return match
	}
	pathPat, queryPat, hasQuery, err := splitQuery(match)
	if err != nil {
		return match
	}
	abs := absolutePath(pathPat, base)
	if hasQuery {
		abs += "?" + queryPat
	}
	return abs
}

// Match reports whether the request URL u matches (RFC 9842 §2.2.2): u has
// the origin of the URL the dictionary came from and the origin the pattern
// names (an absolute pattern naming another origin matches nothing), and its
// path and (when the pattern names one) query match the globs.
func (p *Pattern) Match(u *url.URL) bool {
	if u == nil || originOf(u) != p.base || p.origin != p.base {
		return false
	}
	if !globMatch(p.path, requestPath(u)) {
		return false
	}
	return p.query == nil || globMatch(p.query, u.RawQuery)
}

// requestPath is u's path as the request names the resource: its dot
// segments removed (RFC 3986 §5.2.4), "%2e" read as "." as the URL parser
// does (WHATWG URL, single- and double-dot segments), and "/" for none.
// A browser applies URLPattern to the parsed URL, so "/app/../x" is "/x",
// which "/app/*" does not match.
func requestPath(u *url.URL) string {
	path := u.EscapedPath()
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	if !strings.Contains(path, ".") && !strings.Contains(path, "%") {
		return path
	}
	segs := strings.Split(path[1:], "/")
	out := make([]string, 0, len(segs))
	for i, seg := range segs {
		last := i == len(segs)-1
		switch {
		case isDoubleDot(seg):
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		case isSingleDot(seg):
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

func isSingleDot(seg string) bool { return seg == "." || strings.EqualFold(seg, "%2e") }

func isDoubleDot(seg string) bool {
	switch strings.ToLower(seg) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// splitScheme recognises "scheme://rest".
func splitScheme(s string) (scheme, rest string, ok bool) {
	i := strings.Index(s, "://")
	if i <= 0 {
		return "", "", false
	}
	for j, c := range s[:i] {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	return s[:i], s[i+3:], true
}

func cutAny(s, chars string) (before, after string) {
	if i := strings.IndexAny(s, chars); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

func hasNamedGroup(s string) bool {
	_, port, _ := strings.Cut(strings.TrimPrefix(s, "["), ":")
	return strings.ContainsAny(port, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
}

// splitQuery cuts the pattern at its first unescaped "?".
func splitQuery(s string) (path, query string, hasQuery bool, err error) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '?':
			return s[:i], s[i+1:], true, nil
		case '#':
			return "", "", false, fmt.Errorf("a \"#\" part: %w", ErrUnsupported)
		}
	}
	return s, "", false, nil
}
