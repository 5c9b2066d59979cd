package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// A 226 with a Content-Encoding is a delta between instances so coded
// (RFC 3229 §10.7.1); the cached base is an identity, so it cannot be
// applied. hdig read such a 226 as a coded delta of identities; here the
// delta is between the gzip instances, as the RFC's first example, and
// the client must say why and fetch the whole once, not fail or rebuild
// from the wrong base.
func TestDeltaWithContentEncodingRefused(t *testing.T) {
	v1, v2 := deltaText(1), deltaText(2)
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
		zw.Write(b)
		zw.Close()
		return out.Bytes()
	}
	g1, g2 := gz(v1), gz(v2)
	var delta bytes.Buffer
	if err := patch.EncodeVCDIFF(bytes.NewReader(g1), int64(len(g1)), bytes.NewReader(g2), &delta); err != nil {
		t.Fatal(err)
	}
	o := newOdd226(t, v2, http.Header{"Repr-Digest": {sha256Field(g2)}, "Content-Encoding": {"gzip"}, "IM": {"vcdiff"}}, delta.Bytes())
	res, out := o.get(t, v1, "")
	deltas, plain := &o.deltas, &o.plain
	warned := strings.Join(res.Verdict.Warnings, "\n")
	if res.Status != http.StatusOK || !bytes.Equal(out, v2) || res.Outcome() != verify.Verified ||
		deltas.Load() != 1 || plain.Load() != 1 || !strings.Contains(warned, "Content-Encoding gzip") {
		t.Errorf("status %d, %d bytes (v2: %v), %s, %d deltas and %d plain GETs, warnings %q; want the 226 refused, naming its Content-Encoding, and v2 fetched whole once",
			res.Status, len(out), bytes.Equal(out, v2), res.Outcome(), deltas.Load(), plain.Load(), warned)
	}
}

// A 226 whose delta is compressed twice ("IM: vcdiff, zstd, zstd": each
// name was in the A-IM, and IM may list up to MaxIM) is
// refused before its body is read: each zstd layer may ask for a 128 MiB
// window, and layers multiply a bomb. hdig said nothing and rebuilt it.
func TestDeltaCompressedTwiceRefused(t *testing.T) {
	v1, v2 := deltaText(1), deltaText(2)
	var once, twice bytes.Buffer
	if err := patch.EncodeList([]string{"vcdiff", "zstd"}, bytes.NewReader(v1), int64(len(v1)), bytes.NewReader(v2), &once); err != nil {
		t.Fatal(err)
	}
	if err := patch.Compress(&twice, &once, "zstd", -1); err != nil {
		t.Fatal(err)
	}
	o := newOdd226(t, v2, http.Header{"IM": {"vcdiff, zstd, zstd"}}, twice.Bytes())
	res, out := o.get(t, v1, "vcdiff, zstd, br")
	deltas, plain := &o.deltas, &o.plain
	warned := strings.Join(res.Verdict.Warnings, "\n")
	if res.Status != http.StatusOK || !bytes.Equal(out, v2) || res.Outcome() != verify.Verified ||
		deltas.Load() != 1 || plain.Load() != 1 || !strings.Contains(warned, `compression "zstd" after compression "zstd"`) {
		t.Errorf("status %d, %d bytes (v2: %v), %s, %d deltas and %d plain GETs, warnings %q; want the 226 refused, naming the second compression, and v2 fetched whole once",
			res.Status, len(out), bytes.Equal(out, v2), res.Outcome(), deltas.Load(), plain.Load(), warned)
	}
}

// odd226 is an origin of v2 answering any request that offers "v1" with
// A-IM by a 226 of the given fields and body, and any other with v2.
type odd226 struct {
	url           string
	deltas, plain atomic.Int32
}

func newOdd226(t *testing.T, v2 []byte, fields http.Header, body []byte) *odd226 {
	t.Helper()
	o := &odd226{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v2"`)
		w.Header().Set("Repr-Digest", sha256Field(v2))
		if strings.Contains(r.Header.Get("If-None-Match"), `"v1"`) && r.Header.Get("A-IM") != "" {
			o.deltas.Add(1)
			for k, v := range fields {
				w.Header()[k] = v
			}
			w.Header().Set("Delta-Base", `"v1"`)
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusIMUsed)
			w.Write(body)
			return
		}
		o.plain.Add(1)
		w.Write(v2)
	}))
	t.Cleanup(srv.Close)
	o.url = srv.URL
	return o
}

// get fetches the origin's URL with v1 cached as "v1", held for stdout,
// sending the A-IM im ("": the default).
func (o *odd226) get(t *testing.T, v1 []byte, im string) (*Result, []byte) {
	t.Helper()
	store := cachedBase(t, o.url, `"v1"`, v1)
	c, _ := NewClient(Options{Timeout: testStall})
	var out bytes.Buffer
	req := &Request{URL: o.url, Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store, IM: im}}
	res, err := c.Get(context.Background(), req, &HeldSink{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	return res, out.Bytes()
}
