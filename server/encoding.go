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
	q, star := acceptedCodings(h)
	best, bestQ := "", 0.0
	for _, enc := range encodings {
		w, ok := q[enc]
		if !ok {
			w = star
		}
		if w > bestQ {
			best, bestQ = enc, w
		}
	}
	return best
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
