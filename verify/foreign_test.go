package verify

import (
	"net/http"
	"strings"
	"testing"
)

// foreignHeader builds a header from "Name: value" lines.
func foreignHeader(lines ...string) http.Header {
	h := http.Header{}
	for _, l := range lines {
		k, v, _ := strings.Cut(l, ": ")
		h.Add(k, v)
	}
	return h
}

var foreignFieldsTests = []struct {
	name   string
	header []string
	want   string // per field: "name[alg,alg](ignored)" joined by " "
}{
	// Google's documentation shows x-goog-hash as two field lines, or one.
	{"goog two lines", []string{"x-goog-hash: crc32c=n03x6A==", "x-goog-hash: md5=Ojk9c3dhfxgoKVVHYwFbHQ=="}, "x-goog-hash[crc32c,md5]"},
	{"goog one line", []string{"x-goog-hash: crc32c=n03x6A==, md5=Ojk9c3dhfxgoKVVHYwFbHQ=="}, "x-goog-hash[crc32c,md5]"},
	{"goog composite has no md5", []string{"x-goog-hash: crc32c=n03x6A=="}, "x-goog-hash[crc32c]"},
	{"goog unknown member", []string{"x-goog-hash: sha1=AAAA, crc32c=n03x6A=="}, "x-goog-hash[crc32c]"},
	{"goog transcoded", []string{"x-goog-hash: crc32c=n03x6A==", "x-goog-stored-content-encoding: gzip"}, "x-goog-hash[crc32c](ignored)"},
	{"goog stored gzip sent gzip", []string{"x-goog-hash: crc32c=n03x6A==", "x-goog-stored-content-encoding: gzip", "Content-Encoding: gzip"}, "x-goog-hash[crc32c]"},
	// Content-Encoding over two lines is one list (RFC 9110 §5.3): "gzip"
	// then "br" is "gzip, br", not the stored "gzip".
	{"goog stored gzip sent gzip, br on two lines", []string{"x-goog-hash: crc32c=n03x6A==", "x-goog-stored-content-encoding: gzip", "Content-Encoding: gzip", "Content-Encoding: br"}, "x-goog-hash[crc32c](ignored)"},
	{"goog stored gzip sent gzip, br on one line", []string{"x-goog-hash: crc32c=n03x6A==", "x-goog-stored-content-encoding: gzip", "Content-Encoding: gzip, br"}, "x-goog-hash[crc32c](ignored)"},
	// GCS says identity for an object stored as is: a response compressed
	// on the way (a proxy's gzip) is not the bytes x-goog-hash describes.
	{"goog stored identity sent gzip", []string{"x-goog-hash: crc32c=n03x6A==", "x-goog-stored-content-encoding: identity", "Content-Encoding: gzip"}, "x-goog-hash[crc32c](ignored)"},
	{"goog stored identity sent identity", []string{"x-goog-hash: crc32c=n03x6A==", "x-goog-stored-content-encoding: identity"}, "x-goog-hash[crc32c]"},
	// A value of the wrong length is kept: Compare fails it, as it does a
	// Repr-Digest member's, rather than the field passing unread.
	{"goog md5 too short", []string{"x-goog-hash: md5=AAAA"}, "x-goog-hash[md5]"},
	{"amz crc32 too long", []string{"x-amz-checksum-crc32: AAAAAAAA"}, "x-amz-checksum-crc32[crc32]"},
	{"goog nothing usable", []string{"x-goog-hash: crc32c=###"}, "x-goog-hash[](ignored)"},
	{"amz sha256", []string{"x-amz-checksum-sha256: LCa0a2j/xo/5m0U8HTBBNBNCLXBkg7+g+YpeiGJm564="}, "x-amz-checksum-sha256[sha-256]"},
	{"amz crc64nvme", []string{"x-amz-checksum-crc64nvme: rosUhgp5mIg="}, "x-amz-checksum-crc64nvme[crc64nvme]"},
	{"amz composite suffix", []string{"x-amz-checksum-crc32c: sOO8/Q==-3"}, "x-amz-checksum-crc32c[crc32c](ignored)"},
	{"amz composite type", []string{"x-amz-checksum-crc32: yZRlqg==", "x-amz-checksum-type: COMPOSITE"}, "x-amz-checksum-crc32[crc32](ignored)"},
	// Each value is checked: a second line (or a list an intermediary
	// joined) that disagrees must fail, not make the field unreadable.
	{"amz two lines", []string{"x-amz-checksum-sha256: LCa0a2j/xo/5m0U8HTBBNBNCLXBkg7+g+YpeiGJm564=", "x-amz-checksum-sha256: 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}, "x-amz-checksum-sha256[sha-256,sha-256]"},
	{"amz joined list", []string{"x-amz-checksum-sha256: LCa0a2j/xo/5m0U8HTBBNBNCLXBkg7+g+YpeiGJm564=, 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}, "x-amz-checksum-sha256[sha-256,sha-256]"},
	{"amz whole beside composite", []string{"x-amz-checksum-crc32c: sOO8/Q==", "x-amz-checksum-crc32c: sOO8/Q==-3"}, "x-amz-checksum-crc32c[crc32c] x-amz-checksum-crc32c[crc32c](ignored)"},
	{"amz bad base64", []string{"x-amz-checksum-sha1: not base64"}, "x-amz-checksum-sha1[](ignored)"},
	{"amz several", []string{"x-amz-checksum-crc32: yZRlqg==", "x-amz-checksum-sha256: LCa0a2j/xo/5m0U8HTBBNBNCLXBkg7+g+YpeiGJm564="}, "x-amz-checksum-sha256[sha-256] x-amz-checksum-crc32[crc32]"},
	{"oversized", []string{"x-goog-hash: crc32c=" + strings.Repeat("A", maxForeignLen)}, "x-goog-hash[](ignored)"},
	{"none", []string{"Content-Type: text/plain"}, ""},
}

func TestForeignFields(t *testing.T) {
	for _, tt := range foreignFieldsTests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range ForeignFields(foreignHeader(tt.header...)) {
				got = append(got, describeField(f))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("ForeignFields = %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func describeField(f DigestField) string {
	var algs []string
	for _, d := range f.Digests {
		algs = append(algs, d.Algorithm)
	}
	s := f.Name + "[" + strings.Join(algs, ",") + "]"
	if f.Ignored != "" {
		s += "(ignored)"
	}
	return s
}

func TestParseContentMD5(t *testing.T) {
	for _, tt := range []struct {
		lines []string
		want  string
	}{
		// RFC 1864 §2's own example is the digest of an empty body.
		{[]string{"1B2M2Y8AsgTpgAmY7PhCfg=="}, "Content-MD5[md5]"},
		// Each value is checked: a second line (or a list an intermediary
		// joined) that disagrees must fail, not make the field unreadable.
		{[]string{"1B2M2Y8AsgTpgAmY7PhCfg==", "AAAAAAAAAAAAAAAAAAAAAA=="}, "Content-MD5[md5,md5]"},
		{[]string{"1B2M2Y8AsgTpgAmY7PhCfg==, AAAAAAAAAAAAAAAAAAAAAA=="}, "Content-MD5[md5,md5]"},
		{[]string{"d41d8cd98f00b204e9800998ecf8427e"}, "Content-MD5[md5]"}, // hex, read as hex (TestForeignHexValue)
		{[]string{"not base64!"}, "Content-MD5[](ignored)"},
	} {
		h := http.Header{http.CanonicalHeaderKey(ContentMD5): tt.lines}
		if got := describeField(ParseContentMD5(h)); got != tt.want {
			t.Errorf("ParseContentMD5(%q) = %s, want %s", tt.lines, got, tt.want)
		}
	}
	if f := ParseContentMD5(http.Header{}); f.Present {
		t.Errorf("absent Content-MD5 is present: %+v", f)
	}
}

// TestForeignHexValue: a Content-MD5 (or x-goog-hash, x-amz-checksum-*)
// in hex, the misimplementation seen in the wild, is read as hex when it
// has exactly the algorithm's hex length: a correct one matches and a
// wrong one fails, rather than its base64 reading (24 bytes for md5)
// failing every correct download.
func TestForeignHexValue(t *testing.T) {
	algs := []Algorithm{}
	for _, k := range []string{"md5", "sha-256"} {
		a, _ := Find(k)
		algs = append(algs, a)
	}
	sums, _, err := Sum(strings.NewReader(""), algs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		h    http.Header
		want Result
	}{
		{http.Header{"Content-Md5": {"d41d8cd98f00b204e9800998ecf8427e"}}, Match},
		{http.Header{"Content-Md5": {"D41D8CD98F00B204E9800998ECF8427E"}}, Match},
		{http.Header{"Content-Md5": {"00000000000000000000000000000000"}}, Mismatch},
		{http.Header{"X-Amz-Checksum-Sha256": {"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}}, Match},
		// The obsolete Digest, checked beside Repr-Digest, by the same rule.
		{http.Header{"Digest": {"SHA-256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}}, Match},
		{http.Header{"Digest": {"MD5=00000000000000000000000000000000"}}, Mismatch},
	} {
		var f DigestField
		switch {
		case len(tt.h.Values("Digest")) > 0:
			f = ParseLegacyDigest(tt.h.Values("Digest"))
		case len(tt.h.Values(ContentMD5)) > 0:
			f = ParseContentMD5(tt.h)
		default:
			f = ForeignFields(tt.h)[0]
		}
		cs := Compare(f, sums, Policy{Accept: []string{"md5", "sha-256"}})
		if len(cs) != 1 || cs[0].Result != tt.want {
			t.Errorf("%v: %+v, want one %v", tt.h, cs, tt.want)
		}
	}
}
