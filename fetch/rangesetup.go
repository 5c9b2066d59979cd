package fetch

import (
	"net/http"
	"strings"

	"github.com/hdig/hdig/verify"
)

// adopt takes the identity of the representation from a response.
func (d *download) adopt(resp *http.Response) {
	d.answered(resp)
	d.etag, d.modified = ifRangeETag(resp.Header.Get("ETag")), modifiedOf(resp.Header)
	d.trailer = fields{}
	d.mu.Lock()
	d.late, d.lateRaw, d.lateMore = verify.DigestField{}, "", nil
	d.mu.Unlock()
}

// answered notes the last answer for the result (its status, header and
// URL) without taking the representation's identity from it: a failed
// request (a 503 before a retry, a resume's 416) names no version, and the
// validator a resume holds (the sidecar's ETag) must stay its If-Range
// and what its pieces are checked against.
func (d *download) answered(resp *http.Response) {
	d.url, d.status, d.header, d.answers = resp.Request.URL.String(), resp.StatusCode, resp.Header, resp.Request
}

// startHash sets up the prefix hasher.
func (d *download) startHash(algs []verify.Algorithm, wm int64, landed spans) {
	if d.hasher != nil {
		d.hasher.Close()
	}
	d.algs, d.hasher = algs, verify.NewHasher(algs)
	d.ph = newPrefixHash(d.f, d.hasher, wm, landed)
}

// hashAlgorithms are the algorithms computed over the file: the ones the
// header's digest fields name, the user's (--expect), sha-256 (it names
// cached versions), and those a trailer may bring (withTrailer). Hashing is
// what a download spends its CPU on: sha-512 nobody sent is not computed.
func (d *download) hashAlgorithms(resp *http.Response, fs ...verify.DigestField) []verify.Algorithm {
	return withTrailer(d.req, resp, d.req.algorithms(fs...))
}

// digestTrailer says whether a response announces a digest field (RFC 9530,
// RFC 3230, Content-MD5, Unencoded-Digest, x-goog-hash, x-amz-checksum-*) in
// the trailer. Go's client moves the Trailer header field into the keys of
// resp.Trailer; both are looked at.
func digestTrailer(resp *http.Response) bool {
	return wholeTrailer(resp) || declaresTrailer(resp, func(k string) bool {
		return k == verify.ContentDigest || k == "Content-Md5"
	})
}

// wholeTrailer says whether a response announces in the trailer a digest
// field of the whole representation (Repr-Digest, the obsolete Digest,
// Unencoded-Digest, x-goog-hash, x-amz-checksum-*): not Content-Digest or
// Content-MD5, which cover the message's content only.
func wholeTrailer(resp *http.Response) bool {
	return declaresTrailer(resp, func(k string) bool {
		return k == verify.ReprDigest || k == verify.LegacyDigest ||
			k == "Unencoded-Digest" || k == "X-Goog-Hash" || strings.HasPrefix(k, "X-Amz-Checksum-")
	})
}

// declaresTrailer says the response declares in Trailer (or has in its
// trailer) a field whose canonical name is one is.
func declaresTrailer(resp *http.Response, is func(canonical string) bool) bool {
	names := resp.Header.Values("Trailer")
	for k := range resp.Trailer {
		names = append(names, k)
	}
	for _, t := range names {
		for _, f := range strings.Split(t, ",") {
			if is(http.CanonicalHeaderKey(strings.TrimSpace(f))) {
				return true
			}
		}
	}
	return false
}

// splittable says whether the rest of a first 200 may come in pieces.
func (d *download) splittable(resp *http.Response) bool {
	if resp.StatusCode != http.StatusOK || d.etag == "" || d.total <= 0 {
		return false
	}
	if !strings.Contains(strings.ToLower(resp.Header.Get("Accept-Ranges")), "bytes") {
		return false
	}
	// Digests announced as trailers would be lost with the first stream.
	return !digestTrailer(resp)
}

// canResume says whether a broken stream can continue with a range: only
// with a validator for If-Range (ifRange) and a known length.
func (d *download) canResume() bool { return d.ifRange() != "" && d.total >= 0 }

func (d *download) parallelFor(total int64) int {
	if d.o.Parallel > 0 {
		return d.o.Parallel
	}
	return AutoParallel(total)
}

func (d *download) pieceSizeFor(n int) int64 {
	if d.o.PieceSize > 0 && n > 1 {
		return d.o.PieceSize
	}
	return pieceSize(d.total, n)
}

// ifRangeETag returns an ETag usable with If-Range (RFC 9110 §13.1.5): a
// quoted, not weak, entity tag; else "".
func ifRangeETag(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' || strings.ContainsAny(s[1:len(s)-1], "\"\r\n") {
		return ""
	}
	return s
}
