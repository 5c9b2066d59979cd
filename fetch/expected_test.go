package fetch

import (
	"bytes"
	"context"
	"crypto/sha512"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

// expectField is the user's --expect of b with sha-384 (an algorithm no
// origin field names), or of other bytes when bad.
func expectField(b []byte, bad bool) verify.DigestField {
	sum := sha512.Sum384(b)
	if bad {
		sum[0] ^= 1
	}
	return verify.DigestField{Name: "--expect", Present: true, Trusted: true,
		Digests: []verify.Digest{{Algorithm: "sha-384", Value: sum[:]}}}
}

// expectedCheck returns the one check of the --expect field.
func expectedCheck(t *testing.T, v verify.Verdict) verify.Check {
	t.Helper()
	var out []verify.Check
	for _, c := range v.Checks {
		if c.Field == "--expect" {
			out = append(out, c)
		}
	}
	if len(out) != 1 {
		t.Fatalf("--expect checks %v, want one", v.Checks)
	}
	return out[0]
}

// The user's digest is computed in the same pass as the others, over one
// response, over the decoded bytes with --compressed, and counts as proof.
func TestExpectedOneResponse(t *testing.T) {
	for _, tt := range []struct {
		name     string
		gz, dec  bool
		over     []byte
		bad      bool
		err      error
		outcome  verify.Outcome
		reasonHs string
	}{
		{"plain", false, false, outsideBody, false, nil, verify.Verified, ""},
		{"plain wrong", false, false, outsideBody, true, ErrMismatch, verify.Mismatched, ""},
		{"decoded", true, true, outsideBody, false, nil, verify.Verified, "over the decoded bytes written"},
		{"decoded wrong", true, true, outsideBody, true, ErrMismatch, verify.Mismatched, "over the decoded bytes written"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := outsideOrigin(t, nil, tt.gz, nil)
			c, _ := NewClient(Options{Timeout: 5 * time.Second})
			var out bytes.Buffer
			req := &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), Compressed: tt.dec, RequireDigest: true,
				Expected: []verify.DigestField{expectField(tt.over, tt.bad)}}
			res, err := c.Do(context.Background(), req, &HeldSink{Out: &out})
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			c0 := expectedCheck(t, res.Verdict)
			if res.Outcome() != tt.outcome || !strings.Contains(c0.Reason, tt.reasonHs) {
				t.Errorf("outcome %s, check %v; want %s, reason with %q", res.Outcome(), c0, tt.outcome, tt.reasonHs)
			}
			if tt.err == nil && !bytes.Equal(out.Bytes(), outsideBody) || tt.err != nil && out.Len() != 0 {
				t.Errorf("wrote %q", out.Bytes())
			}
		})
	}
}

// Over range pieces the user's digest is computed while they land, as
// Repr-Digest is, and a wrong one leaves nothing.
func TestExpectedPieces(t *testing.T) {
	for _, bad := range []bool{false, true} {
		o := newTestOrigin(t, pieceTestSize)
		data, _ := o.current()
		path := filepath.Join(t.TempDir(), "f")
		c, _ := NewClient(Options{Timeout: 5 * time.Second})
		req := &Request{URL: o.srv.URL + "/f", Policy: verify.DefaultPolicy(), Expected: []verify.DigestField{expectField(data, bad)}}
		res, err := c.Download(context.Background(), req, path, pieceOpts)
		if res.Pieces < 2 {
			t.Fatalf("pieces = %d, want several", res.Pieces)
		}
		c0 := expectedCheck(t, res.Verdict)
		if bad {
			if !errors.Is(err, ErrMismatch) || c0.Result != verify.Mismatch {
				t.Fatalf("wrong --expect: err %v, check %v", err, c0)
			}
			assertAbsent(t, path, path+PartSuffix)
			continue
		}
		if err != nil || c0.Result != verify.Match {
			t.Fatalf("err %v, check %v", err, c0)
		}
		assertFileBytes(t, path, data)
	}
}

// A resumed part whose sidecar has no hash state for the user's algorithm
// is hashed again from its start, so the digest covers every byte.
func TestExpectedResume(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	c, _ := NewClient(Options{Timeout: 5 * time.Second})
	req := &Request{URL: o.srv.URL + "/f", Policy: verify.DefaultPolicy(), Expected: []verify.DigestField{expectField(data, false)}}
	opts := pieceOpts
	opts.Continue = true
	res, err := c.Download(context.Background(), req, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c0 := expectedCheck(t, res.Verdict); c0.Result != verify.Match {
		t.Errorf("check %v, want match", c0)
	}
	if !strings.Contains(strings.Join(res.Verdict.Warnings, "\n"), "without an algorithm --expect names") {
		t.Errorf("warnings %q, want the re-hash said", res.Verdict.Warnings)
	}
	assertFileBytes(t, path, data)

}

// -C on a complete FILE checks the user's digest too before it says the
// file is complete: a wrong one is not "already complete".
func TestExpectedContinueComplete(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	data, _ := o.current()
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, data, 0o644)
	c, _ := NewClient(Options{Timeout: 5 * time.Second})
	for _, bad := range []bool{false, true} {
		req := &Request{URL: o.srv.URL + "/f", Policy: verify.DefaultPolicy(), Expected: []verify.DigestField{expectField(data, bad)}}
		res, err := c.Download(context.Background(), req, path, DownloadOptions{Continue: true})
		switch {
		case !bad && (err != nil || res.Strategy != StrategyNotModified || expectedCheck(t, res.Verdict).Result != verify.Match):
			t.Errorf("right digest: %v, strategy %s, checks %v", err, res.Strategy, res.Verdict.Checks)
		case bad && (!errors.Is(err, ErrMismatch) || res.Strategy == StrategyNotModified):
			t.Errorf("wrong digest: %v, strategy %s; want a mismatch after fetching", err, res.Strategy)
		}
	}
	assertFileBytes(t, path, data)
}
