package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// gzipPieces is a testOrigin tamper sending no digest, and every 206 as
// the range of other labelled Content-Encoding: gzip, under the same ETag.
func gzipPieces(other []byte) func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
	return func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
		h.Del("Repr-Digest")
		h.Del("Content-Digest")
		if s == http.StatusPartialContent {
			h.Set("Content-Encoding", "gzip")
			var first, last, total int64
			if _, err := fmt.Sscanf(h.Get("Content-Range"), "bytes %d-%d/%d", &first, &last, &total); err == nil {
				b = other[first : last+1]
			}
		}
		return s, b
	}
}

// TestPieceOtherCodingSameETag: a 206 whose Content-Encoding is not the
// first 200's, under the same strong ETag, is of another representation
// (RFC 9110 §8.4: the coding is the representation's). Without any digest
// nothing else tells, and the bytes of two representations were spliced
// and released as "unverified" with exit 0. It is another version
// (versionDiffers), as at a resume's first answer: the file is fetched
// again as one stream, the bytes of one answer only (it was a protocol
// error, exit 5, which no fallback could repair: one can).
func TestPieceOtherCodingSameETag(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	other := genData(pieceTestSize, 2)
	o.tamper = gzipPieces(other)
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("precious"), 0o644)
	res, err := o.get(t, context.Background(), path, pieceOpts, 0)
	if err != nil || !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "restarted as one stream") {
		t.Fatalf("err = %v (outcome %s, warnings %q), want the file fetched again as one stream", err, res.Outcome(), res.Verdict.Warnings)
	}
	assertFileBytes(t, path, data)
	assertAbsent(t, path+PartSuffix, path+SidecarSuffix)
}

// TestResumeOtherCodingSameETag: -C resumes a part of an identity 200
// with 206s under the same strong ETag but another Content-Encoding. The
// sidecar did not record the coding, so the part's bytes and a gzip
// representation's were spliced and, without a digest, released as
// "unverified". The coding is recorded and compared as the ETag is: the
// file is fetched again in full.
func TestResumeOtherCodingSameETag(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	other := genData(pieceTestSize, 2)
	o.tamper = gzipPieces(other)
	var cut atomic.Bool // the first run gets 100 KB of an identity 200, no digest
	cut.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "" || !cut.CompareAndSwap(true, false) {
			o.ServeHTTP(w, r)
			return
		}
		_, etag := o.current()
		w.Header().Set("ETag", etag)
		w.Header().Set("Accept-Ranges", "bytes")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data[:100_000])
	}))
	defer srv.Close()
	get := func(path string) (*Result, error) {
		c, req := o.request(t, 0)
		req.URL = srv.URL + "/f"
		return c.Download(context.Background(), req, path, DownloadOptions{Continue: true})
	}
	path := filepath.Join(t.TempDir(), "f")
	if _, err := get(path); err == nil {
		t.Fatal("the first run was not cut")
	}
	if _, err := os.Stat(path + SidecarSuffix); err != nil {
		t.Fatalf("no sidecar: %v", err)
	}
	res, err := get(path)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	t.Logf("strategy %s, received %d, outcome %s, warnings %q", res.Strategy, res.Received, res.Outcome(), res.Verdict.Warnings)
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, data) {
		t.Fatalf("released %d bytes that are not the identity representation's (outcome %s, warnings %q)", len(got), res.Outcome(), res.Verdict.Warnings)
	}
}
