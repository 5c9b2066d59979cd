package verify

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/hdig/hdig/httpfield"
)

// Fields outside RFC 9530 that origins send with a digest of what they
// serve.
const (
	// GoogHash is Google Cloud Storage's `x-goog-hash: crc32c=…, md5=…`
	// (base64; a composite object has no md5).
	GoogHash = "x-goog-hash"
	// AmzChecksumPrefix starts Amazon S3's x-amz-checksum-ALG fields
	// (base64), sent when the request has x-amz-checksum-mode: ENABLED.
	AmzChecksumPrefix = "x-amz-checksum-"
	// AmzChecksumMode is the request field that asks S3 for them.
	AmzChecksumMode = "x-amz-checksum-mode"
	// ContentMD5 is RFC 1864's Content-MD5: base64 MD5 of the content.
	ContentMD5 = "Content-MD5"
	// UnencodedDigest is draft-ietf-httpbis-unencoded-digest's field: an
	// RFC 9530 value over the representation with no content coding.
	UnencodedDigest = "Unencoded-Digest"
)

// maxForeignLen bounds the value of one foreign field.
const maxForeignLen = 1 << 10

// amzAlgorithms maps x-amz-checksum-ALG to hdig's keys.
var amzAlgorithms = []struct{ suffix, key string }{
	{"sha256", "sha-256"}, {"sha1", "sha"}, {"crc32", "crc32"}, {"crc32c", "crc32c"}, {"crc64nvme", "crc64nvme"},
}

// compositeSuffix is the "-N" S3 appends to a checksum of N multipart
// parts' checksums.
var compositeSuffix = regexp.MustCompile(`-[0-9]+$`)

// ForeignFields parses the digest fields outside RFC 9530 that describe
// the whole representation: x-goog-hash and each x-amz-checksum-ALG. A
// field present but unusable has Ignored set (with its digest kept, for a
// composite S3 checksum, which is not a digest of the object).
func ForeignFields(h http.Header) []DigestField {
	var out []DigestField
	if lines := h.Values(GoogHash); len(lines) > 0 {
		f := parseGoogHash(lines)
		if why := transcoded(h); why != "" && f.Ignored == "" {
			f.Ignored = why
		}
		out = append(out, f)
	}
	for _, a := range amzAlgorithms {
		name := AmzChecksumPrefix + a.suffix
		if lines := h.Values(name); len(lines) > 0 {
			out = append(out, parseAmzChecksum(name, a.key, lines, h.Get("x-amz-checksum-type"))...)
		}
	}
	return out
}

// transcoded says why x-goog-hash does not describe the bytes sent: GCS
// keeps it for the stored object, and decompressive transcoding sends a
// gzip-stored object decoded (x-goog-stored-content-encoding: gzip without
// Content-Encoding: gzip), and a proxy may compress one stored as is
// (identity, with Content-Encoding: gzip). Without the stored coding
// nothing says the bytes differ.
func transcoded(h http.Header) string {
	// Both read by the one parser: a list over all its lines (RFC 9110
	// §5.3), lowercased, identity left out.
	storedLines := h.Values("x-goog-stored-content-encoding")
	stored := httpfield.ContentCoding(storedLines)
	sent := httpfield.ContentCoding(h.Values("Content-Encoding"))
	if len(storedLines) == 0 || stored == sent {
		return ""
	}
	return fmt.Sprintf("it describes the object as stored (%s), and the response was transcoded (Content-Encoding: %q)", orIdentity(stored), sent)
}

func orIdentity(coding string) string {
	if coding == "" {
		return "identity"
	}
	return coding
}

// hexForm is v read as hex when b, its base64 reading, has the wrong
// length for algorithm key and v has exactly the algorithm's hex length
// (32 digits for md5): hex digits are base64 too, and some origins send
// Content-MD5 or Digest in hex, which would otherwise fail every correct
// download. Else b. The one rule for the fields outside RFC 9530 and the
// obsolete Digest.
func hexForm(key, v string, b []byte) []byte {
	if a, ok := Find(key); ok && len(b) != a.Size && len(v) == 2*a.Size {
		if h, err := hex.DecodeString(v); err == nil {
			return h
		}
	}
	return b
}

// parseGoogHash reads `crc32c=<b64>, md5=<b64>` from one or more lines.
func parseGoogHash(lines []string) DigestField {
	f := DigestField{Name: GoogHash, Present: true}
	if n := totalLen(lines); n > maxForeignLen {
		f.Ignored = fmt.Sprintf("field is %d bytes, over the %d-byte limit", n, maxForeignLen)
		return f
	}
	for _, l := range lines {
		for _, m := range strings.Split(l, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(m), "=")
			if !ok {
				f.Skipped = append(f.Skipped, fmt.Sprintf("member %q is not NAME=BASE64", m))
				continue
			}
			f.add(googKey(k), k, v)
		}
	}
	if len(f.Digests) == 0 && f.Ignored == "" {
		f.Ignored = "no usable member: " + strings.Join(f.Skipped, "; ")
		f.Skipped = nil
	}
	return f
}

func googKey(k string) string {
	switch strings.ToLower(strings.TrimSpace(k)) {
	case "crc32c":
		return "crc32c"
	case "md5":
		return "md5"
	}
	return ""
}

// add appends a base64 member under key ("" for a name hdig does not
// know), or notes why it is skipped (not base64).
func (f *DigestField) add(key, name, v string) {
	if key == "" {
		f.Skipped = append(f.Skipped, fmt.Sprintf("member %q is not an algorithm hdig knows", name))
		return
	}
	v = strings.TrimSpace(v)
	b, err := base64.StdEncoding.Strict().DecodeString(v)
	if err != nil || len(b) == 0 {
		f.Skipped = append(f.Skipped, fmt.Sprintf("%s value %q is not base64", name, v))
		return
	}
	b = hexForm(key, v, b)
	// A value of the wrong length is kept: Compare reports it a mismatch,
	// as it does for Repr-Digest and the obsolete Digest.
	f.Digests = append(f.Digests, Digest{Algorithm: key, Value: b})
}

// parseAmzChecksum reads one x-amz-checksum-ALG field. A value ending in
// -N, or sent with x-amz-checksum-type: COMPOSITE, is a checksum of the
// parts' checksums, not of the object: kept apart in a field of its own,
// and Ignored says so. A field sent more than once (as lines, or a list an
// intermediary joined with commas; base64 has no comma) gives one digest
// per value, each checked: a second value that does not match fails
// whatever the first says, rather than making the field unreadable.
func parseAmzChecksum(name, key string, lines []string, typ string) []DigestField {
	whole := DigestField{Name: name, Present: true}
	if n := totalLen(lines); n > maxForeignLen {
		whole.Ignored = fmt.Sprintf("field is %d bytes, over the %d-byte limit", n, maxForeignLen)
		return []DigestField{whole}
	}
	parts := DigestField{Name: name, Present: true}
	for _, l := range lines {
		for _, v := range strings.Split(l, ",") {
			v = strings.TrimSpace(v)
			if m := compositeSuffix.FindString(v); m != "" {
				parts.add(key, name, strings.TrimSuffix(v, m))
				parts.Ignored = fmt.Sprintf("a composite of %s multipart parts' checksums, not a digest of the whole object", m[1:])
			} else if strings.EqualFold(strings.TrimSpace(typ), "COMPOSITE") {
				parts.add(key, name, v)
				parts.Ignored = "a composite of multipart parts' checksums (x-amz-checksum-type: COMPOSITE), not a digest of the whole object"
			} else {
				whole.add(key, name, v)
			}
		}
	}
	whole.Skipped = append(whole.Skipped, parts.Skipped...)
	parts.Skipped = nil
	var out []DigestField
	switch {
	case len(whole.Digests) > 0:
		out = append(out, whole)
	case len(parts.Digests) == 0:
		whole.Ignored, whole.Skipped = strings.Join(whole.Skipped, "; "), nil
		return []DigestField{whole}
	}
	if len(parts.Digests) > 0 {
		out = append(out, parts)
	}
	return out
}

// ParseContentMD5 reads RFC 1864's Content-MD5: the base64 MD5 of the
// message's content. A field sent more than once (as lines, or a list an
// intermediary joined with commas; base64 has no comma) gives one digest
// per value, each checked: a second value that does not match fails
// whatever the first says, rather than making the field unreadable.
func ParseContentMD5(h http.Header) DigestField {
	lines := h.Values(ContentMD5)
	f := DigestField{Name: ContentMD5, Present: len(lines) > 0}
	switch {
	case !f.Present:
	case totalLen(lines) > maxForeignLen:
		f.Ignored = fmt.Sprintf("field is %d bytes, over the %d-byte limit", totalLen(lines), maxForeignLen)
	default:
		for _, l := range lines {
			for _, v := range strings.Split(l, ",") {
				f.add("md5", ContentMD5, v)
			}
		}
		if len(f.Digests) == 0 {
			f.Ignored, f.Skipped = strings.Join(f.Skipped, "; "), nil
		}
	}
	return f
}

// ParseUnencodedDigest reads Unencoded-Digest, an RFC 9530 Dictionary.
func ParseUnencodedDigest(h http.Header) DigestField {
	return ParseDigestField(UnencodedDigest, h.Values(UnencodedDigest))
}

func totalLen(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	return n
}
