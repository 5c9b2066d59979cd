package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Multipart bodies held in memory for a header Content-Digest share one
// budget: when it is spent, the digest goes in a trailer instead of one
// more body being held (concurrent multi-range requests could otherwise
// hold 64 MiB each).
func TestMultipartHeldMemoryBounded(t *testing.T) {
	s, ts := start(t, fixture(t))
	req := []string{"Range: bytes=0-9,1000-1999,50000-", "Want-Content-Digest: sha-256=1"}

	if !s.held.reserve(maxHeldMemory) {
		t.Fatal("budget not free at start")
	}
	r := raw(t, ts, "GET", "/data.bin", req...)
	wantStatus(t, r, http.StatusPartialContent)
	if r.Header.Get("Content-Digest") != "" {
		t.Error("budget spent, yet the multipart body was held for a header Content-Digest")
	}
	if got := r.Trailer.Get("Content-Digest"); got != sfSHA256(r.body) {
		t.Errorf("trailer Content-Digest = %q, want %q", got, sfSHA256(r.body))
	}
	s.held.release(maxHeldMemory)

	r = raw(t, ts, "GET", "/data.bin", req...)
	wantStatus(t, r, http.StatusPartialContent)
	wantHeader(t, r, "Content-Digest", sfSHA256(r.body))
	if len(r.Trailer) != 0 {
		t.Errorf("trailers %v with the budget free", r.Trailer)
	}
	if n := s.held.inUse(); n != 0 {
		t.Errorf("%d bytes still reserved after the responses", n)
	}
}

// A variant is kept under the sha-256 of its identity only if the bytes
// compressed had that sha-256: a file rewritten while its variant is built
// must not poison the content-addressed store (in memory or on disk).
func TestVariantNotKeptUnderWrongSum(t *testing.T) {
	stale := sha256.Sum256([]byte("the version that was hashed"))
	for _, dir := range []string{"", t.TempDir()} {
		vs, err := newVariantStore(dir, DefaultVariantMemory)
		must(t, err)
		if _, err := vs.open(stale[:], "gzip", strings.NewReader("the version read later")); err == nil {
			t.Errorf("state dir %q: a variant of other bytes was accepted", dir)
		}
		if len(vs.mem) != 0 {
			t.Errorf("state dir %q: %d variants kept in memory", dir, len(vs.mem))
		}
		if dir != "" {
			if m, _ := filepath.Glob(filepath.Join(dir, "variants", hex.EncodeToString(stale[:])+".gzip*")); len(m) > 0 {
				t.Errorf("state dir %q: the wrong variant was kept on disk", dir)
			}
		}
	}
}

// Variants on disk stay within their budget, least recently used first out:
// a file that keeps changing (or uploads) cannot fill the disk.
func TestVariantDiskBudget(t *testing.T) {
	dir := t.TempDir()
	vs, err := newVariantStore(dir, 0)
	must(t, err)
	vs.disk.budget = 64 << 10
	r := mrand.New(mrand.NewPCG(3, 4))
	var last string
	for i := range 20 {
		b := make([]byte, 16<<10) // incompressible: ~16 KiB variants
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		sum := sha256.Sum256(b)
		v, err := vs.open(sum[:], "gzip", bytes.NewReader(b))
		if err != nil {
			t.Fatalf("variant %d: %v", i, err)
		}
		v.release()
		last = hex.EncodeToString(sum[:]) + ".gzip." + hex.EncodeToString(v.sum)
	}
	var total int64
	entries, _ := os.ReadDir(filepath.Join(dir, "variants"))
	for _, e := range entries {
		fi, _ := e.Info()
		total += fi.Size()
	}
	if total > vs.disk.budget {
		t.Errorf("%d bytes of variants on disk, budget %d", total, vs.disk.budget)
	}
	if _, err := os.Stat(filepath.Join(dir, "variants", last)); err != nil {
		t.Errorf("the newest variant was pruned: %v", err)
	}
}

// The bytes a store counts on disk follow the files removed: a variant
// discarded (it failed its sha-256) gives its bytes back to the budget, so
// variants that would fit are built again.
func TestVariantDiskUsedFollowsRemovals(t *testing.T) {
	dir := t.TempDir()
	vs, err := newVariantStore(dir, 0)
	must(t, err)
	sum := sha256.Sum256([]byte(text))
	v, err := vs.open(sum[:], "gzip", strings.NewReader(text))
	must(t, err)
	v.release()
	if used, want := vs.disk.used, variantBytes(t, dir); used != want || want == 0 {
		t.Fatalf("after a build: %d bytes counted, %d on disk", used, want)
	}
	vs.discard(v)
	if used, want := vs.disk.used, variantBytes(t, dir); used != want {
		t.Errorf("after a discard: %d bytes counted, want %d (on disk)", used, want)
	}
	// Built again, then removed behind the store's back and built again.
	for i := range 2 {
		v, err = vs.open(sum[:], "gzip", strings.NewReader(text))
		must(t, err)
		v.release()
		if i == 0 {
			files, _ := filepath.Glob(filepath.Join(dir, "variants", "*"))
			for _, f := range files {
				must(t, os.Remove(f))
			}
		}
	}
	if used, want := vs.disk.used, variantBytes(t, dir); used != want {
		t.Errorf("after a file went missing: %d bytes counted, want %d (on disk)", used, want)
	}
}

// variantBytes sums the sizes of the variant files in state dir.
func variantBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	entries, _ := os.ReadDir(filepath.Join(dir, "variants"))
	for _, e := range entries {
		fi, err := e.Info()
		must(t, err)
		total += fi.Size()
	}
	return total
}
