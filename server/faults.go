package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hdig/hdig/verify"
)

// faults are deliberate protocol errors for testing clients. None is
// reachable from the command line; each is a functional option, and all
// apply to every GET and HEAD the handler answers.
type faults struct {
	wrongRepr      bool
	wrongContent   bool
	flipAt         int64 // -1: none
	flipEvery      int64 // WithFlippedByteEvery; 0: none
	truncateAt     int64 // -1: none
	ignoreRange    bool
	rangeShift     int64
	etagEvery      int64
	rate           int64
	firstByteDelay time.Duration
	omitDigests    bool
	trailers       bool
	decodedRepr    bool
	legacy         bool
}

// WithWrongDigest sends digest values that do not match: each value of the
// named fields (verify.ReprDigest, verify.ContentDigest; none named means
// both) has its first byte inverted, so it has the right length but is the
// digest of other bytes. The body and the other fields are correct.
func WithWrongDigest(fields ...string) Option {
	return func(c *config) error {
		if len(fields) == 0 {
			fields = []string{verify.ReprDigest, verify.ContentDigest}
		}
		for _, f := range fields {
			switch f {
			case verify.ReprDigest:
				c.faults.wrongRepr = true
			case verify.ContentDigest:
				c.faults.wrongContent = true
			default:
				return fmt.Errorf("WithWrongDigest: unknown field %q", f)
			}
		}
		return nil
	}
}

// WithFlippedByte inverts the byte at offset off of the representation data
// in every response whose content carries it (a 200, or a single-range 206
// covering off); in a multipart/byteranges response off counts bytes of the
// multipart body. Digests and lengths stay those of the true bytes.
func WithFlippedByte(off int64) Option {
	return func(c *config) error {
		if off < 0 {
			return fmt.Errorf("WithFlippedByte: negative offset %d", off)
		}
		c.faults.flipAt = off
		return nil
	}
}

// WithTruncatedBody sends only the first n bytes of each response body and
// then closes the connection, while Content-Length (or the chunked framing)
// promises more. Headers, digests included, are those of the full response.
func WithTruncatedBody(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("WithTruncatedBody: negative length %d", n)
		}
		c.faults.truncateAt = n
		return nil
	}
}

// WithIgnoreRange ignores Range (and so If-Range): every GET gets 200 with
// the full representation, as RFC 9110 §14.2 allows.
func WithIgnoreRange() Option {
	return func(c *config) error { c.faults.ignoreRange = true; return nil }
}

// WithLyingContentRange announces, in the Content-Range of a single-range
// 206, the range shifted by delta bytes (by -delta when +delta would pass
// the end), while sending the bytes of the real range. Content-Digest
// covers the bytes sent; multipart parts are not altered.
func WithLyingContentRange(delta int64) Option {
	return func(c *config) error {
		if delta == 0 {
			return fmt.Errorf("WithLyingContentRange: delta must not be 0")
		}
		c.faults.rangeShift = delta
		return nil
	}
}

// WithChangingETag changes the ETag every n GET/HEAD requests (n = 1: on
// every request): requests 1..n get the true ETag, n+1..2n a different one
// ("…-g1"), and so on. The bytes never change, so it simulates a resource
// replaced between requests; If-Range and If-None-Match compare against the
// changed tag.
func WithChangingETag(n int) Option {
	return func(c *config) error {
		if n < 1 {
			return fmt.Errorf("WithChangingETag: n must be at least 1, got %d", n)
		}
		c.faults.etagEvery = int64(n)
		return nil
	}
}

// WithRateLimit sends response bodies at about bytesPerSecond, flushing as
// it goes.
func WithRateLimit(bytesPerSecond int64) Option {
	return func(c *config) error {
		if bytesPerSecond <= 0 {
			return fmt.Errorf("WithRateLimit: rate must be positive, got %d", bytesPerSecond)
		}
		c.faults.rate = bytesPerSecond
		return nil
	}
}

// WithFirstByteDelay waits d before answering any request.
func WithFirstByteDelay(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("WithFirstByteDelay: negative delay %v", d)
		}
		c.faults.firstByteDelay = d
		return nil
	}
}

// WithoutDigests sends neither Repr-Digest nor Content-Digest.
func WithoutDigests() Option {
	return func(c *config) error { c.faults.omitDigests = true; return nil }
}

// WithTrailerDigests sends Repr-Digest and Content-Digest in the trailer
// section instead of the header section (RFC 9530 §6.4) on responses with
// content; Content-Length is dropped so HTTP/1.1 uses chunked coding.
// HEAD and 304 responses keep them in the header.
func WithTrailerDigests() Option {
	return func(c *config) error { c.faults.trailers = true; return nil }
}

// WithDecodedReprDigest sends, on an encoded variant, the Repr-Digest of the
// decoded (identity) bytes: the classic bug RFC 9530 §1.3 describes.
// Content-Digest stays correct.
func WithDecodedReprDigest() Option {
	return func(c *config) error { c.faults.decodedRepr = true; return nil }
}

// WithLegacyDigest sends the obsolete RFC 3230 Digest field
// ("Digest: SHA-256=<base64>") instead of Repr-Digest, with the algorithm
// from Want-Digest (else Want-Repr-Digest, else sha-256), and no
// Content-Digest.
func WithLegacyDigest() Option {
	return func(c *config) error { c.faults.legacy = true; return nil }
}

// faultETag applies WithChangingETag to an entity tag.
func (s *Server) faultETag(etag string) string {
	every := s.cfg.faults.etagEvery
	if every == 0 {
		return etag // no shared counter touched per request
	}
	n := s.requests.Add(1)
	gen := (n - 1) / every
	if gen == 0 {
		return etag
	}
	return strings.TrimSuffix(etag, `"`) + "-g" + strconv.FormatInt(gen, 10) + `"`
}

// corrupt returns copies of ds with the first byte of each value inverted.
func corrupt(ds []verify.Digest) []verify.Digest {
	out := make([]verify.Digest, len(ds))
	for i, d := range ds {
		v := append([]byte(nil), d.Value...)
		if len(v) > 0 {
			v[0] ^= 0xff
		}
		out[i] = verify.Digest{Algorithm: d.Algorithm, Value: v}
	}
	return out
}
