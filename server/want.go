package server

import (
	"net/http"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// fallbackAlgs are tried in order when a preference field names nothing
// usable: sha-256, unless the client refused it with weight 0.
var fallbackAlgs = []string{"sha-256", "sha-512"}

// defaultAlgs is the answer without a preference field: sha-256.
var defaultAlgs = []verify.Algorithm{sha256Alg}

// chooseAlgs returns the algorithms for an Integrity field given the
// request's preference field (RFC 9530 §4). A malformed field or unknown
// keys are only a hint that could not be used (Appendix C.3 allows any
// answer): the fallback applies. Every registered algorithm, deprecated
// ones included, is honoured when it is the preferred one, so clients can
// test their handling of them; weight 0 excludes an algorithm.
func chooseAlgs(h http.Header, field string) []verify.Algorithm {
	vs := h.Values(field)
	if len(vs) == 0 {
		return defaultAlgs[:1:1] // sha-256; callers never append in place
	}
	w := verify.ParseWantField(field, vs)
	for _, fb := range fallbackAlgs {
		if algs := verify.Choose(w.Prefs, fb); len(algs) > 0 {
			return algs
		}
	}
	return nil
}

// wantsContentDigest reports whether the request asked for Content-Digest,
// even with a preference list that could not be used.
func wantsContentDigest(h http.Header) bool {
	return len(h.Values(verify.WantContentDigest)) > 0
}

// legacyAlgs chooses algorithms for the RFC 3230 Digest field from
// Want-Digest ("SHA-256;q=0.5, md5"): the supported one with the highest
// non-zero qvalue; else as for Repr-Digest.
func legacyAlgs(h http.Header) []verify.Algorithm {
	best, bestQ := verify.Algorithm{}, 0.0
	for _, line := range h.Values("Want-Digest") {
		for _, item := range strings.Split(line, ",") {
			tok, params, _ := strings.Cut(item, ";")
			q, ok := httpfield.QValue(params)
			if !ok {
				continue // a malformed qvalue drops the member
			}
			if a, ok := verify.LookupLegacy(strings.TrimSpace(tok)); ok && q > bestQ {
				best, bestQ = a, q
			}
		}
	}
	if bestQ > 0 {
		return []verify.Algorithm{best}
	}
	return chooseAlgs(h, verify.WantReprDigest)
}
