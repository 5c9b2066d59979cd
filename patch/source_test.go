package patch

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// countingReader counts the reads of a base and fails once more than
// budget bytes were read, so a test of work done ends quickly when the
// work is unbounded.
type countingReader struct {
	r            io.ReaderAt
	calls, bytes int64
	budget       int64
}

var errOverBudget = errors.New("read budget exhausted")

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.calls++
	c.bytes += int64(len(p))
	if c.bytes > c.budget {
		return 0, errOverBudget
	}
	return c.r.ReadAt(p, off)
}

// TestEncodeLargeBaseReadsBounded: a base larger than the block cache, with
// random bytes inserted near its start (the case that took 129 s for 256
// MiB), is read about twice (once to index it, once by the copies), not
// once per candidate: random target bytes whose hashes hit occupied index
// buckets cost no block loads.
func TestEncodeLargeBaseReadsBounded(t *testing.T) {
	base := random(31, 8<<20)
	ins := random(32, 256<<10)
	target := append(append(bytes.Clone(base[:4096]), ins...), base[4096:]...)
	cr := &countingReader{r: bytes.NewReader(base), budget: 64 << 20}
	var out bytes.Buffer
	err := EncodeVCDIFF(cr, int64(len(base)), bytes.NewReader(target), &out, WithCacheSize(1<<20), WithWindowSize(1<<20))
	if err != nil {
		t.Fatalf("encode: %v (after %d reads, %d bytes)", err, cr.calls, cr.bytes)
	}
	if max := int64(3 * len(base)); cr.bytes > max {
		t.Errorf("read %d bytes of the %d-byte base in %d calls, want at most %d", cr.bytes, len(base), cr.calls, max)
	}
	if max := int64(len(base)/(32<<10) + 4096); cr.calls > max {
		t.Errorf("%d reads of the base, want at most %d", cr.calls, max)
	}
	if out.Len() > len(ins)+len(ins)/50 {
		t.Errorf("delta of %d bytes for %d inserted, want at most 2%% more", out.Len(), len(ins))
	}
	got, err := decodeVCDIFF(base, out.Bytes())
	if err != nil || !bytes.Equal(got, target) {
		t.Fatalf("the delta does not rebuild the target: %v", err)
	}
}

// TestEncodeCachedBaseReadOnce: a base the block cache holds whole is read
// once, by the indexing, and the copies are verified from the cache.
func TestEncodeCachedBaseReadOnce(t *testing.T) {
	base := random(33, 2<<20)
	target := shiftingInserts(scatteredEdits(base, 34, 50), 35, 50)
	cr := &countingReader{r: bytes.NewReader(base), budget: 64 << 20}
	var out bytes.Buffer
	if err := EncodeVCDIFF(cr, int64(len(base)), bytes.NewReader(target), &out); err != nil {
		t.Fatal(err)
	}
	if cr.bytes != int64(len(base)) {
		t.Errorf("read %d bytes of the %d-byte base in %d calls, want each byte once", cr.bytes, len(base), cr.calls)
	}
	if got, err := decodeVCDIFF(base, out.Bytes()); err != nil || !bytes.Equal(got, target) {
		t.Fatalf("the delta does not rebuild the target: %v", err)
	}
}
