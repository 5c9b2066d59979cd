package check

import (
	"net/http"
	"strings"

	"github.com/hdig/hdig/verify"
)

// Faults the reference origin has no option for, injected by rewriting its
// responses (see rewrite).

func sumsOf(body string) []verify.Digest {
	ds, _, _ := verify.Sum(strings.NewReader(body), verify.Algorithms)
	return ds
}

func only(ds []verify.Digest, alg string) string {
	for _, d := range ds {
		if d.Algorithm == alg {
			return member(d)
		}
	}
	return ""
}

// headContentOfBody sends, on HEAD, the Content-Digest of the full body.
func headContentOfBody(r *http.Request, _ *int, h http.Header, body []byte) []byte {
	if r.Method == http.MethodHead {
		h.Set(verify.ContentDigest, only(sumsOf(files["doc.txt"]), "sha-256"))
	}
	return body
}

// headReprOfEmpty sends, on HEAD, the Repr-Digest of the empty content.
func headReprOfEmpty(r *http.Request, _ *int, h http.Header, body []byte) []byte {
	if r.Method == http.MethodHead {
		h.Set(verify.ReprDigest, only(emptySums(), "sha-256"))
	}
	return body
}

// headRefused answers HEAD with 405.
func headRefused(r *http.Request, status *int, h http.Header, body []byte) []byte {
	if r.Method == http.MethodHead {
		*status = http.StatusMethodNotAllowed
		h.Set("Allow", "GET")
	}
	return body
}

// signedContentRange writes the first position of a 206's Content-Range
// with a plus sign, "bytes +6-11/19": RFC 9110 allows digits only.
func signedContentRange(_ *http.Request, status *int, h http.Header, body []byte) []byte {
	if *status == http.StatusPartialContent {
		h.Set("Content-Range", strings.Replace(h.Get("Content-Range"), "bytes ", "bytes +", 1))
	}
	return body
}

// partialRepr sends, on a 206, a Repr-Digest of the part.
func partialRepr(_ *http.Request, status *int, h http.Header, body []byte) []byte {
	if *status == http.StatusPartialContent {
		h.Set(verify.ReprDigest, only(sumsOf(string(body)), "sha-256"))
	}
	return body
}

// wholeContent sends, on a 206, the Content-Digest of the whole.
func wholeContent(_ *http.Request, status *int, h http.Header, body []byte) []byte {
	if *status == http.StatusPartialContent {
		h.Set(verify.ContentDigest, h.Get(verify.ReprDigest))
	}
	return body
}

// partialBytes changes a byte of a 206 (its digests describe the bytes
// sent, so only the comparison with the full body finds it).
func partialBytes(_ *http.Request, status *int, h http.Header, body []byte) []byte {
	if *status == http.StatusPartialContent && len(body) > 0 {
		body = append([]byte(nil), body...)
		body[0] ^= 0xff
		h.Set(verify.ContentDigest, only(sumsOf(string(body)), "sha-256"))
	}
	return body
}

// constantETag sends one ETag for every representation.
func constantETag(_ *http.Request, _ *int, h http.Header, body []byte) []byte {
	if h.Get("ETag") != "" {
		h.Set("ETag", `"same"`)
	}
	return body
}

// dropWant hides the preference fields from the origin.
func dropWant(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(verify.WantReprDigest)
		next.ServeHTTP(w, r)
	})
}

// wantRefused answers 400 to a request preferring sha-512.
func wantRefused(r *http.Request, status *int, _ http.Header, body []byte) []byte {
	if strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512") {
		*status = http.StatusBadRequest
	}
	return body
}

// malformedRepr sends a Repr-Digest that is not a Dictionary of Byte
// Sequences on identity responses.
func malformedRepr(_ *http.Request, _ *int, h http.Header, body []byte) []byte {
	if h.Get("Content-Encoding") == "" && h.Get(verify.ReprDigest) != "" {
		h.Set(verify.ReprDigest, "sha-256=RK/0qy18")
	}
	return body
}

// addMD5 adds a deprecated md5 member to the Repr-Digest of identity 200s.
func addMD5(r *http.Request, status *int, h http.Header, body []byte) []byte {
	if *status == http.StatusOK && r.Method == http.MethodGet && h.Get("Content-Encoding") == "" {
		h.Set(verify.ReprDigest, h.Get(verify.ReprDigest)+", "+only(sumsOf(string(body)), "md5"))
	}
	return body
}
