package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hdig/hdig/verify"
)

// flipTimes flips a byte of the piece at off the first n times it is sent.
func flipTimes(off int, n int32) func(*http.Request, int, http.Header, []byte) (int, []byte) {
	var sent atomic.Int32
	return func(r *http.Request, status int, h http.Header, body []byte) (int, []byte) {
		if strings.HasPrefix(h.Get("Content-Range"), fmt.Sprintf("bytes %d-", off)) && sent.Add(1) <= n {
			body = bytes.Clone(body)
			body[10] ^= 0x40
		}
		return status, body
	}
}

// A piece whose bytes fail its Content-Digest is fetched again (once with
// --retry 0), the warning names the piece and the origin that sent it, and
// the file verifies. The first piece after the head stream is the one the
// prefix hash has usually passed into already; a later one usually not.
func TestDownloadRefetchesCorruptPiece(t *testing.T) {
	for _, off := range []int{262144, 1310720} {
		t.Run(fmt.Sprint(off), func(t *testing.T) {
			o := newTestOrigin(t, pieceTestSize)
			o.tamper = flipTimes(off, 1)
			path := filepath.Join(t.TempDir(), "f")
			res, err := o.get(t, context.Background(), path, pieceOpts, 0)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := o.current()
			assertFileBytes(t, path, data)
			w := strings.Join(res.Verdict.Warnings, "\n")
			if !strings.Contains(w, fmt.Sprintf("bytes %d-", off)) || !strings.Contains(w, o.srv.URL) || !strings.Contains(w, "fetched again") {
				t.Errorf("warnings %q, want the piece, the origin and the refetch", res.Verdict.Warnings)
			}
			if res.Outcome() != verify.Verified || !res.Verdict.Verified(verify.ReprDigest) {
				t.Errorf("outcome %s, checks %v", res.Outcome(), res.Verdict.Checks)
			}
		})
	}
}

// A piece corrupt again after its refetches fails the download as a
// mismatch naming the piece's range and the origin; --retry bounds the
// refetches.
func TestDownloadCorruptPieceTwiceFails(t *testing.T) {
	for _, retry := range []int{0, 2} {
		o := newTestOrigin(t, pieceTestSize)
		var sent atomic.Int32
		flipAll := flip(524288)
		o.tamper = func(r *http.Request, s int, h http.Header, b []byte) (int, []byte) {
			if strings.HasPrefix(h.Get("Content-Range"), "bytes 524288-") {
				sent.Add(1)
			}
			return flipAll(r, s, h, b)
		}
		path := filepath.Join(t.TempDir(), "f")
		os.WriteFile(path, []byte("precious"), 0o644)
		res, err := o.get(t, context.Background(), path, pieceOpts, retry)
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "bytes 524288-786431") || !strings.Contains(err.Error(), o.srv.URL) {
			t.Fatalf("--retry %d: err = %v, want a mismatch naming the piece and the origin", retry, err)
		}
		if want := int32(max(retry, 1) + 1); sent.Load() != want {
			t.Errorf("--retry %d: the piece was sent %d times, want %d", retry, sent.Load(), want)
		}
		assertFileBytes(t, path, []byte("precious"))
		if len(res.Verdict.Mismatches()) != 1 {
			t.Errorf("verdict %v, want the piece's mismatch", res.Verdict.Checks)
		}
	}
}

// rewind after bad bytes were hashed goes back to the start and re-reads
// what is on disk: the hash is that of the good bytes.
func TestPrefixHashRewind(t *testing.T) {
	data := genData(300_000, 1)
	f, err := os.Create(filepath.Join(t.TempDir(), "part"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sha, _ := verify.Lookup("sha-256")
	h := verify.NewHasher([]verify.Algorithm{sha})
	defer h.Close()
	ph := newPrefixHash(f, h, 0, nil)
	write := func(off int, b []byte) {
		t.Helper()
		if _, err := f.WriteAt(b, int64(off)); err != nil {
			t.Fatal(err)
		}
		ph.wrote(int64(off), b)
	}
	bad := bytes.Clone(data[100_000:200_000])
	bad[7] ^= 1
	write(0, data[:100_000])
	write(200_000, data[200_000:])
	write(100_000, bad) // hashed: the watermark passes through it
	if err := ph.rewind(100_000, 200_000); err != nil {
		t.Fatal(err)
	}
	write(100_000, data[100_000:200_000])
	if n, err := ph.finish(); err != nil || n != int64(len(data)) {
		t.Fatalf("finish = %d, %v", n, err)
	}
	want := sha256Field(data)
	if got := verify.FormatDigests(h.Sums()); got != want {
		t.Fatalf("hash after rewind %s, want %s", got, want)
	}
}
