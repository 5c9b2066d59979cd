package check

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An origin that sends its gzip-stored document gzip-encoded whatever the
// request accepts, with a right Repr-Digest of those bytes and a right
// Unencoded-Digest of the decoded ones, must not fail foreign-digest.match:
// Unencoded-Digest covers the decoded bytes, which hdig get compares only
// after decoding (fetch.unencodedChecks). It was compared with the encoded
// bytes and failed.
func TestAlwaysEncodedUnencodedDigestNotFailed(t *testing.T) {
	rep := auditURL(t, alwaysGzipped(t, files["doc.txt"])+"/doc.txt", Options{})
	for _, id := range []string{"foreign-digest.match", "head.repr-digest", "want-repr-digest.honoured"} {
		if got := result(rep, id); got.Status == Fail {
			t.Errorf("%s = %s (%s), want no failure: Unencoded-Digest is of the decoded bytes", id, got.Status, got.Message)
		}
	}
}

// The same origin with a wrong Unencoded-Digest: hdig get --compressed
// decodes the body and compares it (exit 1), so the audit must fail it
// too. encoding.decode skipped the variant, the identity GET having come
// encoded, before its Unencoded-Digest was compared: it passed unjudged.
func TestAlwaysEncodedWrongUnencodedDigestFails(t *testing.T) {
	rep := auditURL(t, alwaysGzipped(t, files["doc.txt"]+"!")+"/doc.txt", Options{})
	if got := result(rep, "encoding.decode"); got.Status != Fail || !strings.Contains(got.Message, "Unencoded-Digest") {
		t.Errorf("encoding.decode = %s (%s), want a failure naming Unencoded-Digest", got.Status, got.Message)
	}
}

// alwaysGzipped is an origin that sends doc.txt gzip-encoded whatever the
// request accepts, with a right Repr-Digest of those bytes and an
// Unencoded-Digest of unencoded (doc.txt's bytes when right).
func alwaysGzipped(t *testing.T, unencoded string) string {
	t.Helper()
	gz := gzipped([]byte(files["doc.txt"]))
	return newOrigin(t, func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Type", "text/plain")
			h.Set("Content-Encoding", "gzip")
			h.Set("Vary", "Accept-Encoding")
			h.Set("ETag", `"gz"`)
			h.Set("Content-Length", strconv.Itoa(len(gz)))
			h.Set(verify.ReprDigest, only(sumsOf(string(gz)), "sha-256"))
			h.Set(verify.UnencodedDigest, only(sumsOf(unencoded), "sha-256"))
			if r.Method == http.MethodHead {
				return
			}
			w.Write(gz)
		})
	})
}
