package fetch

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/verify"
)

// algBody is larger than the Hasher's pipeline threshold.
var algBody = bytes.Repeat([]byte("hash only what can be compared\n"), 12<<10)

// algOrigin serves algBody with the digest fields mode says: "none";
// "header" (Repr-Digest and Content-Digest with every registered algorithm,
// the foreign fields with theirs); "declared" (Repr-Digest sha-512 and md5 in
// a trailer announced by Trailer); "undeclared" (Repr-Digest sha-512 in a
// trailer not announced: only a request with TE: trailers makes hdig expect
// one, with an algorithm Want-* asked for or the policy accepts).
func algOrigin(t *testing.T, mode string) *httptest.Server {
	sums, _, err := verify.Sum(bytes.NewReader(algBody), verify.All)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string][]byte{}
	for _, d := range sums {
		by[d.Algorithm] = d.Value
	}
	b64 := func(k string) string { return base64.StdEncoding.EncodeToString(by[k]) }
	registered := verify.FormatDigests(sums[:len(verify.Algorithms)])
	late := verify.FormatDigests([]verify.Digest{{Algorithm: "sha-512", Value: by["sha-512"]}, {Algorithm: "md5", Value: by["md5"]}})
	accepted := verify.FormatDigests([]verify.Digest{{Algorithm: "sha-512", Value: by["sha-512"]}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		switch mode {
		case "header":
			h.Set(verify.ReprDigest, registered)
			h.Set(verify.ContentDigest, registered)
			h.Set("Content-MD5", b64("md5"))
			h.Set("X-Amz-Checksum-Crc32", b64("crc32"))
			h.Set("X-Amz-Checksum-Crc64nvme", b64("crc64nvme"))
			h.Set("X-Amz-Checksum-Sha1", b64("sha"))
		case "declared":
			h.Set("Trailer", verify.ReprDigest)
		}
		if mode == "none" || mode == "header" {
			// A static file's answer: its length up front, so no trailer
			// can follow it (HTTP/1.1 carries trailers only when chunked).
			h.Set("Content-Length", fmt.Sprint(len(algBody)))
		}
		w.WriteHeader(http.StatusOK)
		w.Write(algBody)
		switch mode {
		case "declared":
			h.Set(verify.ReprDigest, late)
		case "undeclared":
			h.Set(http.TrailerPrefix+verify.ReprDigest, accepted)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// hashedNow is the count of bytes hashed per algorithm so far.
func hashedNow() map[string]int64 {
	m := map[string]int64{}
	for _, a := range verify.All {
		m[a.Key] = verify.Hashed(a.Key)
	}
	return m
}

// Every digest an origin sends, in a header or in a trailer it may send, is
// computed and compared, and nothing else but sha-256 (for the cache) is
// hashed: counted in bytes per algorithm, through one response (Do, as for
// stdout) and through Download (-o).
func TestHashOnlyWhatCanBeCompared(t *testing.T) {
	n := int64(len(algBody))
	for _, tt := range []struct {
		mode   string
		te     bool
		cached bool     // a base-version cache: sha-256 names what it stores
		hashed []string // each exactly n bytes; the others 0
		all    bool     // every algorithm hashed (a declared trailer may name any)
	}{
		{"none", false, false, nil, false},
		{"none", false, true, []string{"sha-256"}, false},
		{"header", false, false, []string{"sha-512", "sha-256", "md5", "sha", "unixsum", "unixcksum", "adler", "crc32c", "crc32", "crc64nvme"}, false},
		{"declared", false, false, nil, true},
		{"undeclared", true, false, []string{"sha-256", "sha-512"}, false},
		// Without TE: trailers a chunked answer may still end with a
		// trailer nobody declared: what it may name is hashed, so a wrong
		// one is a mismatch, never "not computed".
		{"undeclared", false, false, []string{"sha-256", "sha-512"}, false},
	} {
		for _, path := range []string{"Do", "Download"} {
			t.Run(fmt.Sprintf("%s cached=%v %s", tt.mode, tt.cached, path), func(t *testing.T) {
				srv := algOrigin(t, tt.mode)
				c, _ := NewClient(Options{Timeout: 5 * time.Second})
				req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Header: http.Header{},
					WantRepr: []verify.Pref{{Algorithm: "sha-256", Weight: 10}, {Algorithm: "sha-512", Weight: 5}}}
				if tt.te {
					req.Header.Set("TE", "trailers")
				}
				if tt.cached {
					store, err := cache.Open(t.TempDir())
					if err != nil {
						t.Fatal(err)
					}
					defer store.Close()
					req.Delta = &Delta{Cache: store, Off: true}
				}
				before := hashedNow()
				var res *Result
				var err error
				if path == "Do" {
					var out bytes.Buffer
					res, err = c.Do(context.Background(), req, &HeldSink{Out: &out})
				} else {
					res, err = c.Download(context.Background(), req, filepath.Join(t.TempDir(), "f"), DownloadOptions{Parallel: 1})
				}
				if err != nil {
					t.Fatal(err)
				}
				assertAllComputed(t, res.Verdict, tt.mode != "none")
				after := hashedNow()
				for _, a := range verify.All {
					want := int64(0)
					if tt.all || contains(tt.hashed, a.Key) {
						want = n
					}
					if got := after[a.Key] - before[a.Key]; got != want {
						t.Errorf("%s: %d bytes hashed, want %d", a.Key, got, want)
					}
				}
			})
		}
	}
}

// assertAllComputed fails a check the client did not compute (a digest
// sent but not hashed) or that did not match.
func assertAllComputed(t *testing.T, v verify.Verdict, some bool) {
	t.Helper()
	if some && len(v.Checks) == 0 {
		t.Fatalf("no checks; warnings %q", v.Warnings)
	}
	for _, c := range v.Checks {
		if c.Actual == nil || c.Result == verify.Mismatch {
			t.Errorf("%s %s: %s (%s): every digest sent must be computed and match", c.Field, c.Algorithm, c.Result, c.Reason)
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
