package cmd

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/hdig/hdig/fetch"
)

// TestGetZsyncResumesAfterFailure: a run whose ranges fail after a few
// requests keeps its part and sidecar; the next run takes the blocks the
// part holds and fetches fewer bytes than were missing, output verified.
func TestGetZsyncResumesAfterFailure(t *testing.T) {
	o := &singleRangeOrigin{failAfter: 4} // the refused multi-range, then 3 single ranges
	url, seed, out := singleRangeSetup(t, o)
	missing := int64(10 * 2048)
	code, _, errOut := runHdig(t, "get", "--no-cache", "--zsync", "--retry", "0", "--seed", seed, "-o", out, url)
	if code != ExitNetwork {
		t.Fatalf("first run = %d, %q; want 4", code, errOut)
	}
	for _, p := range []string{out + ".hdig-part", out + fetch.ZsyncSidecarSuffix} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("after the failed run: %v; want it kept", err)
		}
	}
	o.mu.Lock()
	o.failAfter = 0
	o.mu.Unlock()
	code, stdout, errOut := runHdig(t, "get", "--json", "--no-cache", "--zsync", "-C", "--seed", seed, "-o", out, url)
	v := zsyncVerdict(t, stdout)
	if code != ExitOK || v.Verdict != "verified" && v.Verdict != "unverified" {
		t.Fatalf("second run = %d, %+v, %q; want 0", code, v, errOut)
	}
	if v.Transfer.Received <= 0 || v.Transfer.Received >= missing {
		t.Errorf("second run received %d bytes; want 1 to %d (less than the %d missing)", v.Transfer.Received, missing-1, missing)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, o.body) {
		t.Error("rebuilt file differs")
	}
	for _, p := range []string{out + ".hdig-part", out + fetch.ZsyncSidecarSuffix} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left after success", p)
		}
	}
	t.Logf("second run received %d of %d missing bytes", v.Transfer.Received, missing)
}

// TestGetZsyncBoundPartCheckedInPlace: a part whose sidecar names this
// very control file is still checked block by block: blocks that do not
// match (here 10 damaged ones) are fetched, never kept.
func TestGetZsyncBoundPartCheckedInPlace(t *testing.T) {
	o := &singleRangeOrigin{}
	url, seed, out := singleRangeSetup(t, o)
	damaged, _ := os.ReadFile(seed) // the body with 10 blocks changed
	os.WriteFile(out+".hdig-part", damaged, 0o644)
	sum := sha1.Sum(o.body)
	writeZsyncSidecar(t, out, hex.EncodeToString(sum[:]), len(o.body), `"v1"`)
	code, stdout, errOut := runHdig(t, "get", "--json", "--no-cache", "--zsync", "-o", out, url)
	v := zsyncVerdict(t, stdout)
	if code != ExitOK || v.Transfer.Received != 10*2048 || v.Transfer.Reused != int64(len(o.body))-10*2048 {
		t.Fatalf("hdig get --zsync = %d, %+v, %q; want 0, 10 blocks received, the rest reused", code, v.Transfer, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, o.body) {
		t.Error("rebuilt file differs")
	}
}

// TestGetZsyncPartOfAnotherVersion: a part bound to another control file
// is only a seed, read at every offset: shifted blocks are found, and it
// is removed once its blocks are in the new part.
func TestGetZsyncPartOfAnotherVersion(t *testing.T) {
	o := &singleRangeOrigin{}
	url, _, out := singleRangeSetup(t, o)
	shifted := append([]byte("an older version, 39 bytes longer......"), o.body...)
	os.WriteFile(out+".hdig-part", shifted, 0o644)
	writeZsyncSidecar(t, out, "00", len(shifted), "")
	code, stdout, errOut := runHdig(t, "get", "--json", "--no-cache", "--zsync", "-o", out, url)
	v := zsyncVerdict(t, stdout)
	if code != ExitOK || v.Transfer.Received != 0 || v.Transfer.Reused != int64(len(o.body)) {
		t.Fatalf("hdig get --zsync = %d, %+v, %q; want 0, everything reused from the shifted part", code, v.Transfer, errOut)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, o.body) {
		t.Error("rebuilt file differs")
	}
	for _, p := range []string{out + ".hdig-part", out + fetch.ZsyncSidecarSuffix, out + ".hdig-zsync-seed"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left after success", p)
		}
	}
}

// writeZsyncSidecar writes OUT.hdig-zsync as an interrupted run leaves it:
// the control file's SHA-1 (hex), the target's length, 2048-byte blocks,
// the origin's ETag.
func writeZsyncSidecar(t *testing.T, out, sha1Hex string, length int, etag string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"sha1": sha1Hex, "length": length, "blocksize": 2048, "etag": etag})
	if err := os.WriteFile(out+fetch.ZsyncSidecarSuffix, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
