package check

// False passes of the gate (found by review): each origin below is wrong
// in one place that an earlier check did not compare.

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// wrongSHA512 is a well-formed sha-512 member that is not the digest of
// doc.txt.
var wrongSHA512 = only(sumsOf("not the document"), "sha-512")

// An origin whose Repr-Digest is right by default but wrong when a client
// prefers sha-512 (Want-Repr-Digest: sha-512=10) must not pass the gate:
// the client that asked for sha-512 gets a digest its bytes do not match.
func TestWantVariantWrongDigestFails(t *testing.T) {
	edit := func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512") {
			h.Set(verify.ReprDigest, wrongSHA512)
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if len(ids(rep, Fail)) == 0 {
		t.Errorf("no check failed, but the sha-512 Repr-Digest sent on request is wrong:\n%s", dump(rep))
	}
}

// A HEAD or a 206 whose Repr-Digest adds a wrong sha-512 beside the GET's
// sha-256 must fail: hdig hashed the GET body with sha-512 (only the
// members the GET's field named were compared).
func TestExtraWrongMemberFails(t *testing.T) {
	right := only(sumsOf(files["doc.txt"]), "sha-256")
	for _, tc := range []struct {
		id   string
		this func(r *http.Request, status int) bool
	}{
		{"head.repr-digest", func(r *http.Request, _ int) bool { return r.Method == http.MethodHead }},
		{"range.repr-digest", func(_ *http.Request, status int) bool { return status == http.StatusPartialContent }},
	} {
		edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			if tc.this(r, *status) {
				h.Set(verify.ReprDigest, right+", "+wrongSHA512)
			}
			return body
		}
		rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
		if got := result(rep, tc.id); got.Status != Fail {
			t.Errorf("%s = %s (%s), want fail: its sha-512 is wrong", tc.id, got.Status, got.Message)
		}
	}
}

// A 226 whose delta rebuilds other bytes, with a Repr-Digest over those
// other bytes, must fail delta.226, not pass on its self-consistent
// Repr-Digest: under the GET's ETag the result is not the representation
// the GET returned; under a fresh ETag, neither the GET's nor any a second
// GET returns, the second GET shows the representation did not change. A
// weak fresh ETag (W/"fresh", or the GET's own tag weakened) says as much
// and is held to the same: it let the 226's own Repr-Digest pass.
func TestDeltaRebuildingOtherBytesFails(t *testing.T) {
	for _, etag := range []string{"", `"fresh"`, `W/"fresh"`, "weakened"} {
		other := lines(300, 9)
		wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
			if *status != http.StatusIMUsed {
				return body
			}
			out := deltaTo(t, h, other)
			h.Del(verify.ContentDigest)
			switch etag {
			case "":
			case "weakened":
				h.Set("ETag", "W/"+h.Get("ETag"))
			default:
				h.Set("ETag", etag)
			}
			h.Set(verify.ReprDigest, only(sumsOf(other), "sha-256"))
			return out
		})
		url, e1 := deltaOrigin(t, wrap)
		r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
		if got := result(r, "delta.226"); got.Status != Fail {
			t.Errorf("ETag %q: delta.226 = %s %q, want fail: the 226 rebuilds bytes that are not the representation", etag, got.Status, got.Message)
		}
	}
}

// A HEAD, a 206 or a Want-Repr-Digest
// variant that always carries another ETag than the GET's, with a wrong
// Repr-Digest, must fail: the ETag alone made the check skip it as "the
// representation changed", though a second GET shows it did not.
func TestOtherETagWrongDigestFails(t *testing.T) {
	failsWhenEdited(t, otherResponses, func(h http.Header, picked bool) {
		if picked {
			h.Set("ETag", `"other"`)
			h.Set(verify.ReprDigest, wrongSHA512)
		}
	}, "the representation did not change and its digest is wrong")
}

// otherResponse picks, by its request and status, a response other than
// the GET whose digests check id judges.
type otherResponse struct {
	id   string
	this func(r *http.Request, status int) bool
}

// otherResponses are the HEAD, the 206 and the Want-Repr-Digest variant.
var otherResponses = []otherResponse{
	{"head.repr-digest", func(r *http.Request, _ int) bool { return r.Method == http.MethodHead }},
	{"range.repr-digest", func(_ *http.Request, status int) bool { return status == http.StatusPartialContent }},
	{"want-repr-digest.honoured", func(r *http.Request, _ int) bool {
		return strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512")
	}},
}

// failsWhenEdited audits, for each response, an origin that applies edit
// to the header fields of every response, picked saying whether it is
// that one, and wants its check to fail.
func failsWhenEdited(t *testing.T, rs []otherResponse, edit func(h http.Header, picked bool), why string) {
	t.Helper()
	for _, tc := range rs {
		rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			edit(h, tc.this(r, *status))
			return body
		}))+"/doc.txt", Options{})
		if got := result(rep, tc.id); got.Status != Fail {
			t.Errorf("%s = %s (%s), want fail: %s", tc.id, got.Status, got.Message, why)
		}
	}
}

// The representation really changes between the GET and the HEAD: the
// HEAD's Repr-Digest is compared with a second GET that carries the HEAD's
// ETag, and passes when right.
func TestChangedRepresentationComparedWithSecondGET(t *testing.T) {
	gets := 0
	v2 := []byte("version two of the document\n")
	edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if r.Method == http.MethodGet && *status == http.StatusOK && r.Header.Get(verify.WantReprDigest) != "" {
			gets++
		}
		if gets > 1 || r.Method == http.MethodHead {
			h.Set("ETag", `"v2"`)
			h.Set(verify.ReprDigest, only(sumsOf(string(v2)), "sha-256"))
			h.Set(verify.ContentDigest, only(sumsOf(string(v2)), "sha-256"))
			h.Set("Content-Length", fmt.Sprint(len(v2)))
			return v2
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "head.repr-digest"); got.Status != Pass {
		t.Errorf("head.repr-digest = %s (%s), want pass", got.Status, got.Message)
	}
}

// A response whose Repr-Digest comes twice, a wrong value in the header and
// the right one in the trailer section, must fail: the merge of the two
// kept the trailer's value only, and the header's, which a client reading
// the header sees, was never compared (checkMatch compared both for the
// GET, the encoded variant did not).
func TestHeaderWrongTrailerRightFails(t *testing.T) {
	gz := gzipped([]byte(files["doc.txt"]))
	wrap := onGzip(func(w http.ResponseWriter) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set(verify.ReprDigest, only(sumsOf("not the gzip bytes"), "sha-256"))
		w.WriteHeader(http.StatusOK)
		w.Write(gz)
		w.(http.Flusher).Flush()
		w.Header().Set(http.TrailerPrefix+verify.ReprDigest, only(sumsOf(string(gz)), "sha-256"))
	})
	rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	if got := result(rep, "encoding.repr-digest"); got.Status != Fail {
		t.Errorf("encoding.repr-digest = %s (%s), want fail: the header's Repr-Digest is wrong", got.Status, got.Message)
	}
}

// A Repr-Digest that comes only as a trailer the header did not announce
// (no Trailer field), of an algorithm outside the Active ones, must still
// be compared: the body was hashed with the algorithms the header named,
// so a wrong md5 was "not computed" and repr-digest.match skipped.
func TestUndeclaredTrailerDigestCompared(t *testing.T) {
	wrap := undeclaredTrailer(files["doc.txt"], verify.ReprDigest, only(sumsOf("not the document"), "md5"))
	rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	if got := result(rep, "repr-digest.match"); got.Status != Fail {
		t.Errorf("repr-digest.match = %s (%s), want fail: the trailer's md5 is wrong", got.Status, got.Message)
	}
}

// A gzip variant whose digests are right for its encoded bytes, but whose
// bytes decode to another document: a client that verifies the encoded
// bytes (hdig get --compressed) then writes a body that is not the
// representation, and every digest check passed. encoding.decode compares
// the decoded bytes with the identity GET's.
func TestEncodedVariantOfOtherBytesFails(t *testing.T) {
	gz := gzipped([]byte("another document entirely\n"))
	wrap := onGzip(func(w http.ResponseWriter) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("ETag", `"gz"`)
		w.Header().Set(verify.ReprDigest, only(sumsOf(string(gz)), "sha-256"))
		w.Header().Set(verify.ContentDigest, only(sumsOf(string(gz)), "sha-256"))
		w.Header().Set("Content-Length", fmt.Sprint(len(gz)))
		w.Write(gz)
	})
	rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	if len(ids(rep, Fail)) == 0 {
		t.Errorf("no check failed, but the gzip variant decodes to another document:\n%s", dump(rep))
	}
	if got := result(rep, "encoding.decode"); got.Status != Fail {
		t.Errorf("encoding.decode = %s (%s), want fail", got.Status, got.Message)
	}
}

// onGzip wraps the origin so that a request accepting gzip is answered by
// serve, and any other by the origin.
func onGzip(serve func(w http.ResponseWriter)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				next.ServeHTTP(w, r)
				return
			}
			serve(w)
		})
	}
}

// A Content-Digest that is not a valid Dictionary, or repeats a key, is
// judged like a Repr-Digest (content-digest.syntax), not passed over: a
// malformed one whose members match was a skip, "no algorithm hdig can
// compute", and a duplicate key went unremarked.
func TestContentDigestSyntax(t *testing.T) {
	right := only(sumsOf(files["doc.txt"]), "sha-256")
	for _, tc := range []struct {
		value string
		want  Status
	}{
		{right + ", bad", Fail},
		{right + ", md5=3", Fail},
		{right + ", " + right, Warn},
		{right, Pass},
	} {
		edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			if r.Method == http.MethodGet && *status == http.StatusOK && h.Get("Content-Encoding") == "" {
				h.Set(verify.ContentDigest, tc.value)
			}
			return body
		}
		rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
		if got := result(rep, "content-digest.syntax"); got.Status != tc.want {
			t.Errorf("Content-Digest: %s: content-digest.syntax = %s (%s), want %s", tc.value, got.Status, got.Message, tc.want)
		}
	}
}

// An origin that compresses whatever Accept-Encoding says sends the GET
// for identity gzip-encoded too: there are no identity bytes to compare
// the encoded variant's decoded bytes with, and encoding.decode must not
// call the variant (the same bytes as the GET) another document.
func TestDecodeWithoutIdentityGETNotFailed(t *testing.T) {
	gz := gzipped([]byte(files["doc.txt"]))
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.Header.Get("Range") != "" {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set(verify.ReprDigest, only(sumsOf(string(gz)), "sha-256"))
			w.Header().Set("Content-Length", fmt.Sprint(len(gz)))
			w.WriteHeader(http.StatusOK)
			w.Write(gz)
		})
	}
	rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	if got := result(rep, "encoding.decode"); got.Status == Fail {
		t.Errorf("encoding.decode = %s (%s), want no failure: the variant decodes to the document", got.Status, got.Message)
	}
}

// A variant in a coding hdig cannot undo is not judged by encoding.decode
// (skip): nothing says it is another document.
func TestDecodeUnknownCodingSkipped(t *testing.T) {
	wrap := onGzip(func(w http.ResponseWriter) {
		w.Header().Set("Content-Encoding", "x-unknown")
		w.Header().Set("ETag", `"xu"`)
		w.Write([]byte("opaque"))
	})
	rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	if got := result(rep, "encoding.decode"); got.Status != Skip {
		t.Errorf("encoding.decode = %s (%s), want skip", got.Status, got.Message)
	}
}

// A Want-Repr-Digest variant whose header Repr-Digest is right and whose
// trailer (announced or not) says another value must fail: a client
// reading the trailer gets a digest the bytes do not match. The probe
// closed the body unread, so the trailer never came and the variant
// passed.
func TestWantVariantWrongTrailerFails(t *testing.T) {
	for _, announce := range []bool{true, false} {
		wrap := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet || !strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512") {
					next.ServeHTTP(w, r)
					return
				}
				if announce {
					w.Header().Set("Trailer", verify.ReprDigest)
				}
				w.Header().Set(verify.ReprDigest, only(sumsOf(files["doc.txt"]), "sha-512"))
				w.WriteHeader(http.StatusOK) // chunked: no Content-Length
				w.Write([]byte(files["doc.txt"]))
				w.(http.Flusher).Flush()
				if announce { // the header map's value, sent again as the trailer
					w.Header().Set(verify.ReprDigest, wrongSHA512)
				} else {
					w.Header().Set(http.TrailerPrefix+verify.ReprDigest, wrongSHA512)
				}
			})
		}
		rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
		if got := result(rep, "want-repr-digest.honoured"); got.Status != Fail {
			t.Errorf("Trailer announced %v: want-repr-digest.honoured = %s (%s), want fail: the trailer's sha-512 is wrong", announce, got.Status, got.Message)
		}
	}
}

// A HEAD, a 206 or a Want-Repr-Digest variant whose Repr-Digest is a wrong
// member of a registered algorithm the GET's field does not name (md5) must
// fail: the GET was hashed with the Active algorithms and those its own
// fields named, so the member was "not computed" and the check skipped
// (or passed), though hdig get, comparing the HEAD's digests (-C), finds
// them wrong.
func TestOtherAlgorithmWrongMemberFails(t *testing.T) {
	wrongMD5 := only(sumsOf("not the document"), "md5")
	failsWhenEdited(t, otherResponses, func(h http.Header, picked bool) {
		if picked {
			h.Set(verify.ReprDigest, wrongMD5)
		}
	}, "its md5 is wrong")
}

// A 226 under the GET's own weak ETag that rebuilds other bytes, with a
// Repr-Digest of those, must fail when a second GET returns the GET's bytes
// again: a weak ETag allows other bytes of the same meaning, not a delta
// rebuilding another document, which hdig get would write in its place.
func TestDeltaWeakETagOtherBytesFails(t *testing.T) {
	other := lines(300, 9)
	weaken := func(h http.Header) {
		if et := h.Get("ETag"); strings.HasPrefix(et, `"`) {
			h.Set("ETag", "W/"+et)
		}
	}
	edit := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
		weaken(h)
		if *status != http.StatusIMUsed {
			return body
		}
		out := deltaTo(t, h, other)
		h.Del(verify.ContentDigest)
		h.Set("Delta-Base", "W/"+h.Get("Delta-Base"))
		h.Set(verify.ReprDigest, only(sumsOf(other), "sha-256"))
		return out
	})
	wrap := func(next http.Handler) http.Handler {
		inner := edit(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Get("If-None-Match"); v != "" {
				r.Header.Set("If-None-Match", strings.TrimPrefix(v, "W/"))
			}
			inner.ServeHTTP(w, r)
		})
	}
	url, e1 := deltaOrigin(t, wrap)
	r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
	if got := result(r, "delta.226"); got.Status != Fail {
		t.Errorf("delta.226 = %s %q, want fail: the 226 rebuilds bytes that are not the representation", got.Status, got.Message)
	}
}

// A HEAD's or a 206's digest field that is not a Dictionary of Byte
// Sequences (a field salvaged member by member, whose match proves
// nothing, or one with members recipients drop) must fail as the GET's
// does (repr-digest.syntax): the members that parse matched the GET's, so
// it passed.
func TestOtherResponseMalformedFieldFails(t *testing.T) {
	for _, tc := range []struct {
		id, field string
		this      func(r *http.Request, status int) bool
	}{
		{"head.repr-digest", verify.ReprDigest, func(r *http.Request, _ int) bool { return r.Method == http.MethodHead }},
		{"range.repr-digest", verify.ReprDigest, func(_ *http.Request, status int) bool { return status == http.StatusPartialContent }},
		{"range.content-digest", verify.ContentDigest, func(_ *http.Request, status int) bool { return status == http.StatusPartialContent }},
		{"want-repr-digest.honoured", verify.ReprDigest, func(r *http.Request, _ int) bool {
			return strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512")
		}},
	} {
		for _, tail := range []string{", sha-512=:not base64", ", sha-512=?1"} {
			edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
				if tc.this(r, *status) {
					h.Set(tc.field, h.Get(tc.field)+tail)
				}
				return body
			}
			rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
			if got := result(rep, tc.id); got.Status != Fail {
				t.Errorf("%s with %q appended = %s (%s), want fail: recipients ignore the field, or some of it", tc.id, tail, got.Status, got.Message)
			}
		}
	}
}

// A HEAD, a 206 or a coded variant with a right Repr-Digest beside a wrong
// obsolete RFC 3230 Digest must fail: hdig get compares Digest as it
// compares Repr-Digest (a resumed download through such a 206 exits 1),
// and no check compared it.
func TestOtherResponseWrongLegacyDigestFails(t *testing.T) {
	wrong := "SHA-256=" + base64.StdEncoding.EncodeToString(sumOf256("not the document"))
	for _, tc := range []struct {
		id   string
		this func(r *http.Request, status int, h http.Header) bool
	}{
		{"head.repr-digest", func(r *http.Request, _ int, _ http.Header) bool { return r.Method == http.MethodHead }},
		{"range.repr-digest", func(_ *http.Request, status int, _ http.Header) bool { return status == http.StatusPartialContent }},
		{"encoding.repr-digest", func(_ *http.Request, _ int, h http.Header) bool { return h.Get("Content-Encoding") != "" }},
		{"want-repr-digest.honoured", func(r *http.Request, _ int, _ http.Header) bool {
			return strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512")
		}},
	} {
		edit := func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			if tc.this(r, *status, h) {
				h.Set(verify.LegacyDigest, wrong)
			}
			return body
		}
		rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
		if got := result(rep, tc.id); got.Status != Fail {
			t.Errorf("%s = %s (%s), want fail: its obsolete Digest names other bytes", tc.id, got.Status, got.Message)
		}
	}
}

func sumOf256(s string) []byte {
	b := sha256.Sum256([]byte(s))
	return b[:]
}

// A 226 that rebuilds the representation, with a right Repr-Digest beside
// a wrong obsolete Digest, must fail: hdig get compares Digest as it
// compares Repr-Digest, with the bytes the delta rebuilds.
func TestDeltaWrongLegacyDigestFails(t *testing.T) {
	wrong := "SHA-256=" + base64.StdEncoding.EncodeToString(sumOf256("not the document"))
	wrap := rewrite(func(_ *http.Request, status *int, h http.Header, body []byte) []byte {
		if *status == http.StatusIMUsed {
			h.Set(verify.LegacyDigest, wrong)
		}
		return body
	})
	url, e1 := deltaOrigin(t, wrap)
	r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
	if got := result(r, "delta.226"); got.Status != Fail {
		t.Errorf("delta.226 = %s %q, want fail: its obsolete Digest names other bytes than it rebuilds", got.Status, got.Message)
	}
}

// A Want-Repr-Digest variant whose chunked body breaks off before its
// trailer section: the trailer, where its Repr-Digest may be wrong, was
// never seen, so the check cannot pass on the header alone; a body broken
// off is a broken request, as the GET's or the 206's is.
func TestWantVariantBodyBrokenOffFails(t *testing.T) {
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512") {
				next.ServeHTTP(w, r)
				return
			}
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nTrailer: Repr-Digest\r\nRepr-Digest: %s\r\nTransfer-Encoding: chunked\r\n\r\n", only(sumsOf(files["doc.txt"]), "sha-512"))
			fmt.Fprintf(buf, "3\r\n%s\r\n", files["doc.txt"][:3]) // then the connection closes: no last chunk, no trailer
			buf.Flush()
		})
	}
	rep := auditURL(t, newOrigin(t, wrap)+"/doc.txt", Options{})
	if got := result(rep, "want-repr-digest.honoured"); got.Status != Fail {
		t.Errorf("want-repr-digest.honoured = %s (%s), want fail: the variant's body broke off before its trailer", got.Status, got.Message)
	}
}

// A Want-Repr-Digest variant under another ETag, whose representation a
// second GET cannot pin down (another ETag, other bytes): its Repr-Digest
// was compared with nothing, yet the check passed on its algorithm alone.
// Not judged is a skip (and, after --max-time ran out, a fail), as for
// HEAD's and a 206's, never a pass.
func TestWantVariantUnjudgedNotPassed(t *testing.T) {
	second := func(r *http.Request) bool {
		return r.Method == http.MethodGet && r.Header.Get("Range") == "" && r.Header.Get(verify.AmzChecksumMode) == "" &&
			r.Header.Get("Origin") == "" && r.Header.Get("A-IM") == "" && r.Header.Get("Available-Dictionary") == "" &&
			r.Header.Get("Accept-Encoding") == "identity" && !strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512")
	}
	edit := func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		switch {
		case strings.HasPrefix(r.Header.Get(verify.WantReprDigest), "sha-512"):
			h.Set("ETag", `"variant"`)
			h.Set(verify.ReprDigest, wrongSHA512)
		case second(r):
			h.Set("ETag", `"third"`)
			h.Del(verify.ReprDigest)
			h.Del(verify.ContentDigest)
			return []byte("other bytes again")
		}
		return body
	}
	rep := auditURL(t, newOrigin(t, rewrite(edit))+"/doc.txt", Options{})
	if got := result(rep, "want-repr-digest.honoured"); got.Status == Pass {
		t.Errorf("want-repr-digest.honoured = pass (%s); its wrong sha-512 was compared with nothing", got.Message)
	}
}

// deltaTo encodes, in the IM the 226's header names, a delta from the
// version the delta tests cache (lines(300, 1)) to other.
func deltaTo(t *testing.T, h http.Header, other string) []byte {
	t.Helper()
	ims, err := patch.ParseIM(h.Values("IM"))
	if err != nil {
		t.Fatal(err)
	}
	base := lines(300, 1)
	var out bytes.Buffer
	if err := patch.EncodeList(ims, strings.NewReader(base), int64(len(base)), strings.NewReader(other), &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// undeclaredTrailer answers a whole GET (no Range) with body, chunked,
// then name: value as a trailer the header did not announce; anything
// else goes to the origin.
func undeclaredTrailer(body, name, value string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.Header.Get("Range") != "" {
				next.ServeHTTP(w, r)
				return
			}
			w.WriteHeader(http.StatusOK) // chunked: no Content-Length
			w.Write([]byte(body))
			w.(http.Flusher).Flush()
			w.Header().Set(http.TrailerPrefix+name, value)
		})
	}
}

// A 226 under a fresh ETag that rebuilds the representation right, when
// the GET's own bytes were corrupt (they fail its Repr-Digest, which
// repr-digest.match reports) and a second GET under the GET's ETag
// returns the right ones: delta.226 is judged as the HEAD, the 206 and the
// variants are (judgeRepr), against the second GET's bytes, not failed
// for the GET's fault by comparing with the corrupt bytes.
func TestDeltaFreshETagNotFailedForCorruptGET(t *testing.T) {
	armed, gets := false, 0
	wrap := rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		switch {
		case !armed:
		case *status == http.StatusIMUsed:
			h.Set("ETag", `"fresh"`)
		case r.Method == http.MethodGet && *status == http.StatusOK && r.Header.Get("A-IM") == "" && r.Header.Get("Range") == "":
			if gets++; gets == 1 && len(body) > 0 {
				body = append([]byte(nil), body...)
				body[0] ^= 1
			}
		}
		return body
	})
	url, e1 := deltaOrigin(t, wrap)
	armed = true
	r := auditURL(t, url, Options{BaseETag: e1, Base: baseOf(lines(300, 1))})
	if got := result(r, "repr-digest.match"); got.Status != Fail {
		t.Fatalf("repr-digest.match = %s %q, want fail: the GET's bytes were corrupt", got.Status, got.Message)
	}
	if got := result(r, "delta.226"); got.Status != Pass {
		t.Errorf("delta.226 = %s %q, want pass: the 226 rebuilt the representation a second GET returned", got.Status, got.Message)
	}
}
