package fetch

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

// One stream's bytes are written by the prefix hasher's pipeline, not by
// the goroutine that reads them (verify.PipeWritten counts them there), so
// receiving, writing and hashing run side by side; the file is whole.
func TestDownloadWritesInHashPipeline(t *testing.T) {
	o := newTestOrigin(t, oneStreamSize)
	path := filepath.Join(t.TempDir(), "f")
	before := verify.PipeWritten()
	if _, err := o.get(t, context.Background(), path, DownloadOptions{splitAfter: time.Hour}, 0); err != nil {
		t.Fatal(err)
	}
	data, _ := o.current()
	assertFileBytes(t, path, data)
	// All but the first pieces' worth below the pipeline's start.
	if got := verify.PipeWritten() - before; got < int64(len(data))-1<<20 {
		t.Errorf("the pipeline wrote %d of %d bytes", got, len(data))
	}
}

// prefixFixture is a prefix hasher at watermark 0 over sha-256 and a lent
// buffer filled with n bytes.
func prefixFixture(t *testing.T, n int) (*prefixHash, *verify.Buffer, []byte) {
	t.Helper()
	sha, _ := verify.Lookup("sha-256")
	h := verify.NewHasher([]verify.Algorithm{sha})
	t.Cleanup(func() { h.Close() })
	ph := newPrefixHash(bytes.NewReader(nil), h, 0, nil)
	b := ph.lend(0)
	if b == nil {
		t.Fatal("no buffer lent at the watermark")
	}
	data := genData(n, 2)
	copy(b.Bytes(), data)
	return ph, b, data
}

// A snapshot (what the sidecar saves) waits for the hasher's writes: what
// it reports as landed is on disk, even while a write is slow.
func TestSnapshotWaitsForPipelineWrites(t *testing.T) {
	ph, b, data := prefixFixture(t, 300<<10)
	release := make(chan struct{})
	var landed atomic.Bool
	slow := func(p []byte) error {
		<-release
		landed.Store(true)
		return nil
	}
	if err := ph.landLent(0, b, len(data), slow); err != nil {
		t.Fatal(err)
	}
	done := make(chan int64)
	go func() {
		wm, _, err := ph.snapshot(func() {
			if !landed.Load() {
				t.Error("the snapshot was taken before the write it counts had landed")
			}
		})
		if err != nil {
			t.Error(err)
		}
		done <- wm
	}()
	close(release)
	if wm := <-done; wm != int64(len(data)) {
		t.Errorf("watermark %d, want %d", wm, len(data))
	}
}

// A write that fails in the hasher's pipeline fails the prefix hash: a
// snapshot returns the error (no sidecar claims the bytes) and so does
// finish, tagged as the output's.
func TestPipelineWriteErrorStopsPrefixHash(t *testing.T) {
	ph, b, data := prefixFixture(t, 300<<10)
	full := &writeError{err: errors.New("no space left on device")}
	ph.landLent(0, b, len(data), func([]byte) error { return full })
	if _, _, err := ph.snapshot(nil); !errors.Is(err, full) {
		t.Errorf("snapshot error %v, want the write's", err)
	}
	_, err := ph.finish()
	var we *writeError
	if !errors.As(err, &we) {
		t.Errorf("finish error %v, want the write error", err)
	}
}
