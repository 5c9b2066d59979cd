package check

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// fault is an origin fault and the checks it must make fail or warn; no
// other check may fail or warn.
type fault struct {
	name string
	opt  server.Option                   // a fault of the reference origin
	wrap func(http.Handler) http.Handler // or one injected around it
	fail []string
	warn []string
	// hint is a phrase a failing or warning message must hold: what the
	// operator has to fix.
	hint string
}

var faults = []fault{
	{name: "no digests", opt: server.WithoutDigests(), fail: []string{"repr-digest.present"}, hint: "want e.g. Repr-Digest: sha-256=:"},
	{name: "legacy Digest only", opt: server.WithLegacyDigest(), fail: []string{"repr-digest.present"}, hint: "obsolete RFC 3230 Digest"},
	{name: "wrong Repr-Digest", opt: server.WithWrongDigest(verify.ReprDigest),
		fail: []string{"encoding.repr-digest", "etag.consistency", "head.repr-digest", "range.multipart", "range.repr-digest", "repr-digest.match", "want-repr-digest.honoured", "zsync.control"}, hint: "does not match the 7780 bytes of the representation; want sha-256=:"},
	{name: "wrong Content-Digest", opt: server.WithWrongDigest(verify.ContentDigest),
		fail: []string{"content-digest.match", "encoding.content-digest", "head.content-digest", "range.content-digest", "range.multipart", "want-repr-digest.honoured", "zsync.control"}, hint: "does not match the 7780 bytes of content"},
	{name: "flipped byte outside the range", opt: server.WithFlippedByte(100),
		fail: []string{"content-digest.match", "encoding.content-digest", "encoding.decode", "encoding.repr-digest", "etag.consistency", "head.repr-digest", "range.multipart", "range.repr-digest", "repr-digest.match", "want-repr-digest.honoured", "zsync.control"}, hint: "want sha-256=:"},
	{name: "truncated body", opt: server.WithTruncatedBody(50), fail: []string{"http.status"}, hint: "broke off after 50 bytes"},
	{name: "range ignored", opt: server.WithIgnoreRange(), warn: []string{"range.partial"}, hint: "got 200 with the whole body; want 206"},
	{name: "lying Content-Range", opt: server.WithLyingContentRange(3), fail: []string{"range.partial"}, hint: "has Content-Range bytes 2596-5188/7780; want bytes 2593-5185/7780"},
	{name: "signed Content-Range", wrap: rewrite(signedContentRange), fail: []string{"range.partial"}, hint: `'+' is not a digit`},
	{name: "ETag changes on every request", opt: server.WithChangingETag(1), warn: []string{"etag.consistency"}, hint: "should keep its ETag"},
	{name: "Repr-Digest of decoded bytes", opt: server.WithDecodedReprDigest(), fail: []string{"encoding.repr-digest"}, hint: "is the digest of the decoded bytes; it must cover the"},
	{name: "HEAD Content-Digest of the body", wrap: rewrite(headContentOfBody), fail: []string{"head.content-digest"}, hint: "(it is the digest of the GET's body)"},
	{name: "HEAD Repr-Digest of empty content", wrap: rewrite(headReprOfEmpty), fail: []string{"head.repr-digest"}, hint: "it is the digest of empty content, but it must cover the representation"},
	{name: "HEAD refused", wrap: rewrite(headRefused), fail: []string{"head.repr-digest"}, hint: "HEAD returned 405"},
	{name: "206 Repr-Digest of the part", wrap: rewrite(partialRepr), fail: []string{"range.multipart", "range.repr-digest"}, hint: "covers only the 2593 bytes of partial content; it must cover the whole representation"},
	{name: "206 Content-Digest of the whole", wrap: rewrite(wholeContent), fail: []string{"range.content-digest", "range.multipart"}, hint: "is the digest of the whole representation; it must cover only the 2593 bytes"},
	{name: "206 with other bytes", wrap: rewrite(partialBytes), fail: []string{"range.partial"}, hint: "differs from those bytes of the GET body at offset 2593"},
	{name: "one ETag for all variants", wrap: rewrite(constantETag), fail: []string{"etag.consistency"}, hint: "want a distinct strong ETag for each"},
	{name: "Want-Repr-Digest ignored", wrap: dropWant, warn: []string{"want-repr-digest.honoured"}, hint: "asked sha-512=10, got sha-256"},
	{name: "Want-Repr-Digest refused", wrap: rewrite(wantRefused), fail: []string{"want-repr-digest.honoured"}, hint: "must not change the status"},
	{name: "malformed Repr-Digest", wrap: rewrite(malformedRepr), fail: []string{"repr-digest.syntax"}, hint: "is malformed"},
	{name: "deprecated algorithm", wrap: rewrite(addMD5), warn: []string{"repr-digest.algorithm"}, hint: "deprecated md5"},
}

func TestFaults(t *testing.T) {
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			var opts []server.Option
			if f.opt != nil {
				opts = append(opts, f.opt)
			}
			r := auditURL(t, newOrigin(t, f.wrap, opts...)+"/doc.txt", Options{})
			assertFault(t, r, f)
		})
	}
}

// assertFault checks that exactly the fault's ids failed and warned and
// that the message says what to fix.
func assertFault(t *testing.T, r Report, f fault) {
	t.Helper()
	slices.Sort(f.fail)
	slices.Sort(f.warn)
	if got := ids(r, Fail); !slices.Equal(got, f.fail) {
		t.Errorf("failed %v, want %v\n%s", got, f.fail, dump(r))
	}
	if got := ids(r, Warn); !slices.Equal(got, f.warn) {
		t.Errorf("warned %v, want %v\n%s", got, f.warn, dump(r))
	}
	for _, c := range r.Checks {
		if (c.Status == Fail || c.Status == Warn) && strings.Contains(c.Message, f.hint) {
			return
		}
	}
	t.Errorf("no failure or warning says %q\n%s", f.hint, dump(r))
}

// deltaFaults break the 226 of the reference origin's delta step; each
// makes delta.226 fail, and nothing else.
var deltaFaults = []struct {
	name string
	edit func(h http.Header, body []byte) (int, []byte)
	hint string
}{
	{"no ETag", func(h http.Header, b []byte) (int, []byte) { h.Del("ETag"); return 226, b }, "the 226 has no ETag"},
	{"no IM", func(h http.Header, b []byte) (int, []byte) { h.Del("IM"); return 226, b }, "the 226 has no IM field"},
	{"IM not offered", func(h http.Header, b []byte) (int, []byte) { h.Set("IM", "bsdiff"); return 226, b }, "did not offer bsdiff"},
	{"IM too long", func(h http.Header, b []byte) (int, []byte) {
		h.Set("IM", "vcdiff"+strings.Repeat(", gzip", 8))
		return 226, b
	}, "more than 8 instance manipulations"},
	{"other Delta-Base", func(h http.Header, b []byte) (int, []byte) { h.Set("Delta-Base", `"v0"`); return 226, b }, `the 226 has Delta-Base "v0"`},
	{"wrong Content-Digest", func(h http.Header, b []byte) (int, []byte) {
		h.Set(verify.ContentDigest, only(emptySums(), "sha-256"))
		return 226, b
	}, "does not match its"},
	{"wrong Repr-Digest", func(h http.Header, b []byte) (int, []byte) {
		h.Set(verify.ReprDigest, only(emptySums(), "sha-256"))
		return 226, b
	}, "do not match Repr-Digest"},
	{"corrupt delta", func(h http.Header, b []byte) (int, []byte) {
		h.Del(verify.ContentDigest)
		return 226, b[:len(b)/2]
	}, "does not apply to the base"},
	{"delta compressed as a Content-Encoding", func(h http.Header, b []byte) (int, []byte) {
		h.Del(verify.ContentDigest)
		h.Set("Content-Encoding", "gzip")
		return 226, gzipped(b)
	}, "a compressed delta is an instance manipulation: want IM: vcdiff, gzip"},
	{"304 for an older base", func(h http.Header, _ []byte) (int, []byte) { return 304, nil }, "304 Not Modified for If-None-Match"},
}

func TestDeltaFaults(t *testing.T) {
	for _, f := range deltaFaults {
		t.Run(f.name, func(t *testing.T) {
			wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
				if *status != http.StatusIMUsed {
					return body
				}
				*status, body = f.edit(h, body)
				return body
			})
			url, e1 := deltaOrigin(t, wrap)
			r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
			assertFault(t, r, fault{fail: []string{"delta.226"}, hint: f.hint})
		})
	}
}

// TestDeltaRefusedIM: a member with q=0 in --im is not offered (RFC 9110
// §12.4.2), as the origin and hdig get read it: a 226 using it fails.
func TestDeltaRefusedIM(t *testing.T) {
	for _, im := range []string{"gdiff, vcdiff;q=0", "gdiff, vcdiff;q=0.0", "gdiff, vcdiff;Q=0.000;x=y"} {
		force := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("A-IM") != "" {
					r.Header.Set("A-IM", "vcdiff") // an origin that ignores qvalues
				}
				h.ServeHTTP(w, r)
			})
		}
		url, e1 := deltaOrigin(t, force)
		r := auditURL(t, url, Options{BaseETag: e1, IM: im, Base: baseOf(lines(300, 1))})
		assertFault(t, r, fault{fail: []string{"delta.226"}, hint: "did not offer vcdiff"})
	}
}

// TestDeltaIdentityCoding: "Content-Encoding: Identity" (any case, or
// among empty members) is no coding: the 226 passes.
func TestDeltaIdentityCoding(t *testing.T) {
	for _, ce := range []string{"Identity", "identity, ", "IDENTITY"} {
		wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
			if *status == http.StatusIMUsed {
				h.Set("Content-Encoding", ce)
			}
			return body
		})
		url, e1 := deltaOrigin(t, wrap)
		r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
		if got := result(r, "delta.226"); got.Status != Pass {
			t.Errorf("Content-Encoding %q: delta.226 = %s %q, want pass", ce, got.Status, got.Message)
		}
	}
}

// TestDeltaCompressionDoesNotDecode: a 226 whose compression over the
// delta does not decode fails for that reason; --base is not in question,
// and the message does not suggest it is.
func TestDeltaCompressionDoesNotDecode(t *testing.T) {
	wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status != http.StatusIMUsed {
			return body
		}
		h.Del(verify.ContentDigest)
		h.Set("IM", "vcdiff, gzip")
		z := gzipped(body)
		return z[:len(z)/2]
	})
	url, e1 := deltaOrigin(t, wrap)
	r := auditURL(t, url, Options{BaseETag: e1, IM: "vcdiff, gzip", Base: baseOf(lines(300, 1))})
	assertFault(t, r, fault{fail: []string{"delta.226"}, hint: "does not decode"})
	if got := result(r, "delta.226"); strings.Contains(got.Message, "--base") {
		t.Errorf("delta.226 = %q: blames the base", got.Message)
	}
}

// gzipped returns b gzip-compressed.
func gzipped(b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}
