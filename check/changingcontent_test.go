package check

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// An origin whose representation changes on every request answers the
// If-None-Match GET with a 200 of another version, which the audit cannot
// tell apart (versionRef: changed, and again after). With a Content-Digest
// that is not of its content and no Repr-Digest, etag.consistency passed
// silently: contentFails returned leaving it to the Repr-Digest's path,
// which says nothing when there is no Repr-Digest. hdig get sending that
// If-None-Match gets the 200 and fails; the check must at least say the
// field was not judged. The HEAD's fields outside RFC 9530 were dropped
// alike (outsideFails).
func TestChangingContentDigestNotJudgedSaid(t *testing.T) {
	var n atomic.Int64
	edit := rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		i := n.Add(1)
		h.Set("ETag", fmt.Sprintf(`"v%d"`, i))
		h.Del(verify.ReprDigest)
		h.Del(verify.ContentDigest)
		if r.Header.Get("If-None-Match") != "" {
			h.Set(verify.ContentDigest, "sha-256=:"+b64Of("sha-256", "not its content")+":")
		}
		if r.Method == http.MethodHead {
			h.Set(verify.GoogHash, "md5="+b64Of("md5", "not the document"))
		}
		if r.Method == http.MethodHead || r.Header.Get("Range") != "" {
			return body
		}
		return append(body, fmt.Sprintf("version %d\n", i)...)
	})
	rep := auditURL(t, newOrigin(t, edit)+"/doc.txt", Options{})
	if got := result(rep, "etag.consistency"); got.Status == Pass || !strings.Contains(got.Message, "Content-Digest") {
		t.Errorf("etag.consistency = %s (%s), want the If-None-Match 200's Content-Digest said not judged", got.Status, got.Message)
	}
	// The same of a field outside RFC 9530 (outsideFails), with no
	// Repr-Digest anywhere for head.repr-digest's path to speak of.
	if got := result(rep, "head.repr-digest"); !strings.Contains(got.Message, verify.GoogHash) {
		t.Errorf("head.repr-digest = %s (%s), want the HEAD's %s said not judged", got.Status, got.Message, verify.GoogHash)
	}
}
