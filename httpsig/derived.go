package httpsig

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// derivedValue is the value of a derived component (§2.2).
func (m Message) derivedValue(c Component) (string, error) {
	if c.Name == "@status" {
		if m.Response == nil || c.has("req") {
			return "", fmt.Errorf("httpsig: @status applies to responses only")
		}
		if m.Response.StatusCode < 100 || m.Response.StatusCode > 999 {
			return "", fmt.Errorf("httpsig: @status %d is not a three-digit status", m.Response.StatusCode)
		}
		return strconv.Itoa(m.Response.StatusCode), nil
	}
	r, err := m.request(c)
	if err != nil {
		return "", err
	}
	switch c.Name {
	case "@method":
		return r.Method, nil
	case "@target-uri":
		return targetURI(r), nil
	case "@authority":
		return authority(r), nil
	case "@scheme":
		return scheme(r), nil
	case "@request-target":
		return requestTarget(r), nil
	case "@path":
		return path(r), nil
	case "@query":
		return "?" + r.URL.RawQuery, nil
	case "@query-param":
		name, _ := c.str("name")
		return queryParam(r.URL.RawQuery, name)
	}
	return "", fmt.Errorf("httpsig: unknown derived component %q", c.Name)
}

// scheme is the request's scheme, lowercase: the URL's, else https when the
// request came over TLS, else http.
func scheme(r *http.Request) string {
	if r.URL.Scheme != "" {
		return strings.ToLower(r.URL.Scheme)
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// authority is host[:port], the host lowercased and the scheme's default
// port left out (RFC 9110 §4.2.3).
func authority(r *http.Request) string {
	a := r.Host
	if a == "" {
		a = r.URL.Host
	}
	a = strings.ToLower(a)
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return a
	}
	s := scheme(r)
	if (s == "http" && port == "80") || (s == "https" && port == "443") {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return a
}

// path is the absolute path as sent (percent-encoding kept); empty is "/".
func path(r *http.Request) string {
	p := r.URL.EscapedPath()
	if p == "" {
		return "/"
	}
	return p
}

// requestTarget is the request-target of the request line: as received on a
// server (r.RequestURI), else built from the URL in origin form
// (authority form for CONNECT, "*" for OPTIONS *).
func requestTarget(r *http.Request) string {
	if r.RequestURI != "" {
		return r.RequestURI
	}
	if r.Method == http.MethodConnect {
		return r.URL.Host
	}
	if r.URL.Path == "*" {
		return "*"
	}
	t := path(r)
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		t += "?" + r.URL.RawQuery
	}
	return t
}

// targetURI is the absolute target URI (RFC 9110 §7.1).
func targetURI(r *http.Request) string {
	if r.RequestURI != "" && strings.Contains(r.RequestURI, "://") {
		return r.RequestURI
	}
	if strings.HasPrefix(r.RequestURI, "/") {
		return scheme(r) + "://" + authority(r) + r.RequestURI
	}
	t := path(r)
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		t += "?" + r.URL.RawQuery
	}
	return scheme(r) + "://" + authority(r) + t
}
