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
	var deltas, plain atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v2"`)
		w.Header().Set("Repr-Digest", sha256Field(v2))
		if strings.Contains(r.Header.Get("If-None-Match"), `"v1"`) && r.Header.Get("A-IM") != "" {
			deltas.Add(1)
			w.Header().Set("Repr-Digest", sha256Field(g2))
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("IM", "vcdiff")
			w.Header().Set("Delta-Base", `"v1"`)
			w.Header().Set("Content-Length", strconv.Itoa(delta.Len()))
			w.WriteHeader(http.StatusIMUsed)
			w.Write(delta.Bytes())
			return
		}
		plain.Add(1)
		w.Write(v2)
	}))
	defer srv.Close()
	store := cachedBase(t, srv.URL, `"v1"`, v1)
	c, _ := NewClient(Options{Timeout: testStall})
	var out bytes.Buffer
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Delta: &Delta{Cache: store}}
	res, err := c.Get(context.Background(), req, &HeldSink{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	warned := strings.Join(res.Verdict.Warnings, "\n")
	if res.Status != http.StatusOK || !bytes.Equal(out.Bytes(), v2) || res.Outcome() != verify.Verified ||
		deltas.Load() != 1 || plain.Load() != 1 || !strings.Contains(warned, "Content-Encoding gzip") {
		t.Errorf("status %d, %d bytes (v2: %v), %s, %d deltas and %d plain GETs, warnings %q; want the 226 refused, naming its Content-Encoding, and v2 fetched whole once",
			res.Status, out.Len(), bytes.Equal(out.Bytes(), v2), res.Outcome(), deltas.Load(), plain.Load(), warned)
	}
}

// A 226 whose delta is compressed twice ("IM: vcdiff, zstd, zstd": each
// name was in the A-IM of --compressed, and IM may list up to MaxIM) is
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
	var deltas, plain atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v2"`)
		w.Header().Set("Repr-Digest", sha256Field(v2))
		if strings.Contains(r.Header.Get("If-None-Match"), `"v1"`) && strings.Contains(r.Header.Get("A-IM"), "zstd") {
			deltas.Add(1)
			w.Header().Set("IM", "vcdiff, zstd, zstd")
			w.Header().Set("Delta-Base", `"v1"`)
			w.Header().Set("Content-Length", strconv.Itoa(twice.Len()))
			w.WriteHeader(http.StatusIMUsed)
			w.Write(twice.Bytes())
			return
		}
		plain.Add(1)
		w.Write(v2)
	}))
	defer srv.Close()
	store := cachedBase(t, srv.URL, `"v1"`, v1)
	c, _ := NewClient(Options{Timeout: testStall})
	var out bytes.Buffer
	req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Compressed: true, Delta: &Delta{Cache: store}}
	res, err := c.Get(context.Background(), req, &HeldSink{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	warned := strings.Join(res.Verdict.Warnings, "\n")
	if res.Status != http.StatusOK || !bytes.Equal(out.Bytes(), v2) || res.Outcome() != verify.Verified ||
		deltas.Load() != 1 || plain.Load() != 1 || !strings.Contains(warned, `compression "zstd" after compression "zstd"`) {
		t.Errorf("status %d, %d bytes (v2: %v), %s, %d deltas and %d plain GETs, warnings %q; want the 226 refused, naming the second compression, and v2 fetched whole once",
			res.Status, out.Len(), bytes.Equal(out.Bytes(), v2), res.Outcome(), deltas.Load(), plain.Load(), warned)
	}
}
