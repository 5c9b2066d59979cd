package fetch

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hdig/hdig/zsync"
)

// A control file of many identical blocks turns a seed of one byte into a
// large output (every all-zero block matches the zero-padded last window).
// What the seeds contribute is bound like any rebuilt output: --max-ratio
// bytes out per byte of seed read, past the floor (review of issue 12).
func TestZsyncSeedOutputBounded(t *testing.T) {
	target := make([]byte, 64<<10) // 32 blocks of zeros
	ctl, err := zsync.Make(bytes.NewReader(target), int64(len(target)), zsync.MakeOptions{Filename: "z", Blocksize: 2048})
	if err != nil {
		t.Fatal(err)
	}
	part, err := os.Create(filepath.Join(t.TempDir(), "part"))
	if err != nil {
		t.Fatal(err)
	}
	defer part.Close()
	b := &seedBound{out: part, lim: Limits{MaxRatio: 4, Floor: 4096}}
	m := zsync.NewMatcher(ctl, b)
	err = m.Seed(b.reader(bytes.NewReader([]byte{0})))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("seeding 64 KiB of output from 1 byte: err %v, want ErrTooLarge", err)
	}
	if b.written > 4096+2048 {
		t.Errorf("%d bytes written before the bound stopped it, want at most the floor and one block", b.written)
	}
	// An honest seed (the target itself) is within any ratio.
	b = &seedBound{out: part, lim: Limits{MaxRatio: 4, Floor: 4096}}
	m = zsync.NewMatcher(ctl, b)
	if err := m.Seed(b.reader(bytes.NewReader(target))); err != nil {
		t.Fatalf("seeding from the target itself: %v", err)
	}
}
