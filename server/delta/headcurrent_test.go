package delta

import (
	"net/http"
	"testing"
)

// A HEAD has the status and fields of the GET it stands for (RFC 9110
// §9.3.2): with A-IM and an If-None-Match naming the current identity,
// the GET's 304 comes from the identity (the client holds the current
// instance), so the HEAD's does too, not a 200 of the encoded variant.
func TestDeltaHEADCurrentIdentityIs304(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	e1 := o.putETag(text(3000, 1))
	hdr := map[string]string{"A-IM": "vcdiff", "If-None-Match": e1, "Accept-Encoding": "gzip"}
	get, _ := o.get(hdr)
	req, _ := http.NewRequest(http.MethodHead, o.url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	head, err := plainClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if get.StatusCode != http.StatusNotModified {
		t.Fatalf("GET: status %d, want 304", get.StatusCode)
	}
	for _, k := range []string{"ETag", "Repr-Digest", "Content-Encoding"} {
		if head.StatusCode != get.StatusCode || head.Header.Get(k) != get.Header.Get(k) {
			t.Errorf("HEAD: %d %s %q; GET: %d %q", head.StatusCode, k, head.Header.Get(k), get.StatusCode, get.Header.Get(k))
		}
	}
}
