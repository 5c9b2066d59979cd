package server

import (
	"mime"
	"net/http"
	"strings"

	"github.com/hdig/hdig/httpfield"
)

// encodings are the content codings the server produces, in its order of
// preference when the client weighs them equally.
var encodings = []string{"br", "zstd", "gzip"}

// compressible reports whether a media type is worth compressing: text,
// JSON, XML, JavaScript, SVG and a few other textual formats.
func compressible(ctype string) bool {
	mt, _, err := mime.ParseMediaType(ctype)
	if err != nil {
		return false
	}
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/wasm", "application/x-ndjson", "application/toml",
		"application/yaml", "application/x-yaml", "application/x-sh", "image/x-icon", "image/bmp":
		return true
	}
	return false
}

// negotiate picks the content coding for a request from Accept-Encoding
// (RFC 9110 §12.5.3): the offered coding with the highest non-zero qvalue,
// "*" standing for codings not listed, ties broken by the server's order.
// It returns "" for identity. A refused identity is not enforced: the
// server then still sends identity rather than 406.
func negotiate(h http.Header) string {
	weight := codingWeights(h)
	best, bestQ := "", 0.0
	for _, enc := range encodings {
		if w := weight(enc); w > bestQ {
			best, bestQ = enc, w
		}
	}
	return best
}

// AcceptedCodings returns those of names that Accept-Encoding accepts
// (qvalue above 0, "*" standing for codings not listed), in the order of
// names; the delta step uses it to offer a compressed 226.
func AcceptedCodings(h http.Header, names []string) []string {
	weight := codingWeights(h)
	var out []string
	for _, n := range names {
		if weight(n) > 0 {
			out = append(out, n)
		}
	}
	return out
}

// codingWeights is the weight Accept-Encoding gives each coding ("*"
// standing for those not listed).
func codingWeights(h http.Header) func(string) float64 {
	q, star := acceptedCodings(h)
	return func(name string) float64 {
		if w, ok := q[name]; ok {
			return w
		}
		return star
	}
}

// acceptedCodings reads Accept-Encoding into the qvalue of each coding
// listed (lower case; x-gzip is gzip) and the qvalue of "*" (-1: absent).
func acceptedCodings(h http.Header) (q map[string]float64, star float64) {
	q, star = map[string]float64{}, -1.0
	for _, line := range h.Values("Accept-Encoding") {
		for _, item := range strings.Split(line, ",") {
			name, params, _ := strings.Cut(item, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			w := qvalue(params)
			if name == "*" {
				star = w
				continue
			}
			if name == "x-gzip" {
				name = "gzip"
			}
			q[name] = w
		}
	}
	return q, star
}

// qvalue is the weight of a list member from its parameters: 1 when
// absent, 0 when malformed (httpfield.QValue).
func qvalue(params string) float64 {
	q, ok := httpfield.QValue(params)
	if !ok {
		return 0
	}
	return q
}

// deltaIdentity returns the identity of an encoded variant rep when the
// request asks the delta step for a delta (A-IM and an If-None-Match not
// naming the variant), nil otherwise: a delta is made between identities,
// and a 226 carries its own content coding. current reports that
// If-None-Match names the identity itself: the client holds the current
// instance, and the identity answers (304). A HEAD gets that 304 too, as
// the GET it stands for does, but never the delta step (226 is for GET).
func (s *Server) deltaIdentity(r *http.Request, rep *Representation) (id *Representation, current bool) {
	head := r.Method == http.MethodHead
	if s.cfg.delta == nil || rep.identity == nil || r.Method != http.MethodGet && !head ||
		r.Header.Get("A-IM") == "" || r.Header.Get("If-None-Match") == "" {
		return nil, false
	}
	tags, err := httpfield.ParseETags(r.Header.Values("If-None-Match"))
	if err != nil {
		return nil, false
	}
	for _, t := range tags {
		t = strings.TrimPrefix(t, "W/")
		if t == "*" || t == rep.ETag {
			return nil, false
		}
		if t == rep.identity.ETag {
			return rep.identity, true
		}
	}
	if head {
		return nil, false
	}
	return rep.identity, false
}
