package fetch

import (
	"bytes"
	"compress/zlib"
	"net/http"
	"strings"
	"testing"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// zlibbed is a file holding deltaText(v) as a zlib stream at level 1.
func zlibbed(v int) []byte {
	var z bytes.Buffer
	z.WriteString("a header before the stream\n")
	w, _ := zlib.NewWriterLevel(&z, 1)
	w.Write(deltaText(v))
	w.Close()
	return z.Bytes()
}

// A 226 of hdig-vcdiff-inflated (offered in --im) rebuilds v2 from the
// cached v1 and is verified; one made from another base is refused by its
// stream's check or the digest, and v2 is fetched whole once.
func TestInflatedDeltaApplied(t *testing.T) {
	v1, v2 := zlibbed(1), zlibbed(2)
	im := patch.InflatedIM + ", vcdiff"
	var good, bad bytes.Buffer
	if err := patch.Encode(patch.InflatedIM, bytes.NewReader(v1), int64(len(v1)), bytes.NewReader(v2), &good); err != nil {
		t.Fatal(err)
	}
	o := newOdd226(t, v2, http.Header{"IM": {patch.InflatedIM}}, good.Bytes())
	res, out := o.get(t, v1, im)
	if res.Status != http.StatusIMUsed || !bytes.Equal(out, v2) || res.Outcome() != verify.Verified || o.plain.Load() != 0 {
		t.Fatalf("status %d, %d bytes (v2: %v), %s, %d plain GETs; want the 226 applied and verified", res.Status, len(out), bytes.Equal(out, v2), res.Outcome(), o.plain.Load())
	}
	if good.Len()*4 > len(v2) {
		t.Errorf("the delta is %d bytes for a %d-byte version", good.Len(), len(v2))
	}
	v0 := zlibbed(3)
	if err := patch.Encode(patch.InflatedIM, bytes.NewReader(v0), int64(len(v0)), bytes.NewReader(v2), &bad); err != nil {
		t.Fatal(err)
	}
	o = newOdd226(t, v2, http.Header{"IM": {patch.InflatedIM}}, bad.Bytes())
	res, out = o.get(t, v1, im)
	warned := strings.Join(res.Verdict.Warnings, "\n")
	if res.Status != http.StatusOK || !bytes.Equal(out, v2) || res.Outcome() != verify.Verified || o.plain.Load() != 1 {
		t.Errorf("wrong base: status %d, %d bytes (v2: %v), %s, %d plain GETs, warnings %q; want v2 fetched whole once", res.Status, len(out), bytes.Equal(out, v2), res.Outcome(), o.plain.Load(), warned)
	}
}
