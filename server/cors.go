package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// CORS (Fetch standard §3.2): with WithCORS, a script on an allowed origin
// may read the digest fields of a response and send digests with an upload.

// CORSExposed are the response fields a cross-origin script may read beyond
// the CORS-safelisted ones: the digests, what identifies the version, the
// dictionary and signature fields, and what describes a range.
var CORSExposed = []string{
	"Repr-Digest", "Content-Digest", "Unencoded-Digest", "ETag", "Use-As-Dictionary",
	"Signature", "Signature-Input", "Content-Range", "Accept-Ranges",
	"Content-Encoding", "Content-Location", "Location", "Link", "IM", "Delta-Base",
}

// corsRequestHeaders are the request fields a preflight allows: the
// digests of an upload, the Want-* preferences, and the fields of
// conditional and range requests.
var corsRequestHeaders = []string{
	"Content-Digest", "Repr-Digest", "Unencoded-Digest", "Want-Content-Digest", "Want-Repr-Digest",
	"Content-Type", "Content-Encoding", "Range", "If-Match", "If-None-Match",
	"If-Modified-Since", "If-Unmodified-Since", "If-Range", "A-IM", "Cache-Control",
}

// corsMaxAge is how long (seconds) a browser may cache a preflight.
const corsMaxAge = "600"

// corsPolicy is the set of allowed origins.
type corsPolicy struct {
	any     bool            // "*": every origin
	origins map[string]bool // serialized origins, e.g. "https://example.org:8443"
}

// WithCORS allows cross-origin scripts on origins (serialized origins such
// as "https://example.org" or "http://localhost:8000", or the single entry
// "*" for every origin) to read responses, their digest fields included
// (Access-Control-Expose-Headers), and to send uploads with digests
// (preflight answers). A request from any other origin gets no CORS field.
func WithCORS(origins []string) Option {
	return func(c *config) error {
		p, err := parseCORS(origins)
		if err != nil {
			return err
		}
		c.cors = p
		return nil
	}
}

func parseCORS(origins []string) (*corsPolicy, error) {
	p := &corsPolicy{origins: map[string]bool{}}
	for _, o := range origins {
		o = strings.TrimSpace(o)
		if o == "*" {
			p.any = true
			continue
		}
		norm, err := normalizeOrigin(o)
		if err != nil {
			return nil, err
		}
		p.origins[norm] = true
	}
	if !p.any && len(p.origins) == 0 {
		return nil, fmt.Errorf("cors: want at least one origin or *, got none")
	}
	if p.any && len(p.origins) > 0 {
		return nil, fmt.Errorf("cors: want * alone or a list of origins, got both")
	}
	return p, nil
}

// normalizeOrigin returns o as a browser serializes it in Origin: lower
// case scheme and host, no default port, no path.
func normalizeOrigin(o string) (string, error) {
	u, err := url.Parse(o)
	bad := err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != ""
	if bad {
		return "", fmt.Errorf("cors: want an origin such as https://example.org or http://localhost:8000 (or *), got %q", o)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	return strings.ToLower(u.Scheme) + "://" + host, nil
}

// allows reports the Access-Control-Allow-Origin value for origin, "" if
// it is not allowed.
func (p *corsPolicy) allows(origin string) string {
	switch {
	case p.any:
		return "*" // with or without Origin: one answer for every cache
	case origin == "":
		return ""
	case p.origins[origin]:
		return origin
	}
	return ""
}

// cors sets the CORS fields of a response before next runs, and answers
// preflights (OPTIONS with Origin and Access-Control-Request-Method) of
// allowed origins itself. A preflight of another origin goes to next,
// which answers as to any OPTIONS, without CORS fields: the browser then
// refuses the request.
func (s *Server) cors(next http.Handler) http.Handler {
	p := s.cfg.cors
	if p == nil {
		return next
	}
	exposed := strings.Join(CORSExposed, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		s.corsVary(h)
		allow := p.allows(r.Header.Get("Origin"))
		if allow == "" {
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Access-Control-Allow-Origin", allow)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", s.corsMethods())
			h.Set("Access-Control-Allow-Headers", strings.Join(corsRequestHeaders, ", "))
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", exposed)
		next.ServeHTTP(w, r)
	})
}

// corsVary adds Vary: Origin where the CORS fields depend on the request's
// Origin (a list of origins, not "*"), so a cache keeps one answer per
// origin. problem() calls it again after clearing Vary.
func (s *Server) corsVary(h http.Header) {
	if p := s.cfg.cors; p != nil && !p.any {
		h.Add("Vary", "Origin")
	}
}

// corsMethods are the methods a preflight allows: those of Allow but
// OPTIONS, which is never preflighted.
func (s *Server) corsMethods() string {
	if s.cfg.writable {
		return "GET, HEAD, PUT, POST"
	}
	return "GET, HEAD"
}
