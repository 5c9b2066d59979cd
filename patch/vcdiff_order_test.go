package patch

import (
	"bytes"
	"errors"
	"testing"
)

// TestTargetSegmentErrorFirst: a VCD_TARGET window whose segment lies
// beyond the target decoded so far (corrupt, read first in the delta)
// and whose target window length is over the limit (read after it). The
// first error in the delta is the segment's; before c94dc5b..64b04f3 it
// was reported (ErrCorrupt); since checkTarget moved to run time the
// later limit error is reported instead.
func TestTargetSegmentErrorFirst(t *testing.T) {
	delta := []byte{0xd6, 0xc3, 0xc4, 0, 0}
	delta = append(delta, vcdTarget)
	delta = appendVarint(delta, 5)   // segment length
	delta = appendVarint(delta, 0)   // segment position: nothing decoded yet
	body := appendVarint(nil, 1<<20) // target window length, over WithMaxWindow
	body = append(body, 0)
	body = appendVarint(body, 0)
	body = appendVarint(body, 0)
	body = appendVarint(body, 0)
	delta = appendVarint(delta, uint64(len(body)))
	delta = append(delta, body...)
	err := DecodeVCDIFF(bytes.NewReader(nil), 0, bytes.NewReader(delta), &bytes.Buffer{}, WithMaxWindow(1<<10))
	if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrLimit) {
		t.Fatalf("error = %v, want the target segment's ErrCorrupt (first in the delta)", err)
	}
}

// TestOldSegmentLimitFirst: the other way round: a VCD_TARGET
// window whose segment is older than the history kept (ErrLimit, first
// in the delta) and whose sections are cut short (ErrCorrupt, after it).
// c94dc5b reported ErrLimit; 64b04f3 reports ErrCorrupt.
func TestOldSegmentLimitFirst(t *testing.T) {
	delta := []byte{0xd6, 0xc3, 0xc4, 0, 0}
	delta = append(delta, vcdiffWindow(2, []byte("xy"), []byte{3})...) // ADD 2
	delta = append(delta, vcdiffWindow(2, []byte("zw"), []byte{3})...)
	delta = append(delta, vcdTarget)
	delta = appendVarint(delta, 1) // segment length
	delta = appendVarint(delta, 0) // segment position: dropped from the history
	body := appendVarint(nil, 1)
	body = append(body, 0)
	body = appendVarint(body, 0)
	body = appendVarint(body, 1)
	body = appendVarint(body, 1)
	delta = appendVarint(delta, uint64(len(body)+2))
	delta = append(delta, body...) // the two section bytes are missing
	err := DecodeVCDIFF(bytes.NewReader(nil), 0, bytes.NewReader(delta), &bytes.Buffer{}, WithHistory(2))
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("error = %v, want the target segment's ErrLimit (first in the delta)", err)
	}
}
