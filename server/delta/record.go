package delta

import (
	"context"
	"io"
	"os"

	"github.com/hdig/hdig/server"
)

// maxPendingRecordings bounds the recordings waiting or in progress; past
// it a version is not kept (each holds an open file).
const maxPendingRecordings = 64

// job is a recording in progress.
type job struct{ done chan struct{} }

// recordAsync starts keeping cur as a version of its file, if it is not
// kept already, beside the response: the copy reads a file of its own
// (Representation.Reopen) and at most cap(h.copies) copies run at once.
// It returns a wait for the copy (nil when there is nothing to wait for),
// which the server runs before the last byte of the response.
func (h *Handler) recordAsync(ctx context.Context, cur *server.Representation) func() {
	if cur.Size > h.maxSize {
		return nil
	}
	h.idxMu.Lock()
	// A version kept already (every GET of it but the first) costs a
	// lookup: no decoding of its tag, no key made. After Close nothing is
	// recorded: the state directory may be gone.
	if h.has(cur.File, cur.ETag) || h.bgCtx.Err() != nil {
		h.idxMu.Unlock()
		return nil
	}
	if _, ok := tagSum(cur.ETag); !ok {
		h.idxMu.Unlock()
		return nil
	}
	key := cur.File + "\x00" + cur.ETag
	j := h.jobs[key]
	if j == nil && len(h.jobs) < maxPendingRecordings {
		j = &job{done: make(chan struct{})}
		h.jobs[key] = j
		h.idxMu.Unlock()
		f, err := cur.Reopen()
		if err != nil {
			h.finish(key, j)
			return nil
		}
		go h.run(key, j, cur.File, cur.ETag, cur.Size, f)
	} else {
		h.idxMu.Unlock()
	}
	if j == nil {
		return nil
	}
	return func() {
		select {
		case <-j.done:
		case <-ctx.Done():
		}
	}
}

// run copies one version in the background.
func (h *Handler) run(key string, j *job, file, tag string, size int64, f *os.File) {
	defer h.finish(key, j)
	defer f.Close()
	if recordGate != nil {
		<-recordGate
	}
	h.copies <- struct{}{}
	defer func() { <-h.copies }()
	if err := h.add(file, tag, size, f); err != nil {
		h.log.Warn("delta history", "file", file, "err", err)
	}
}

func (h *Handler) finish(key string, j *job) {
	h.idxMu.Lock()
	delete(h.jobs, key)
	close(j.done)
	h.idle.Broadcast()
	h.idxMu.Unlock()
}

// add keeps the size bytes of src as version tag of file, now.
func (h *Handler) add(file, tag string, size int64, src io.ReaderAt) error {
	if _, ok := tagSum(tag); !ok || size > h.maxSize {
		return nil
	}
	defer h.lock(file)()
	h.idxMu.Lock()
	kept := h.has(file, tag)
	h.idxMu.Unlock()
	if kept {
		return nil
	}
	if err := h.copyBlob(file, tag, size, src); err != nil {
		return err
	}
	return h.insert(file, tag, size)
}

// recordGate, when set (by tests), holds background recordings until it
// is closed.
var recordGate chan struct{}

// Wait returns when no recording is waiting or in progress and no delta is
// being made in the background.
func (h *Handler) Wait() {
	h.bg.Wait()
	h.idxMu.Lock()
	defer h.idxMu.Unlock()
	for len(h.jobs) > 0 {
		h.idle.Wait()
	}
}
