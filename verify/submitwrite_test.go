package verify

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// offsetWriter records the bytes it is given at running offsets.
type offsetWriter struct {
	buf   []byte
	calls int
	fail  int // the call that fails (1-based); 0: none
}

func (w *offsetWriter) write(p []byte) error {
	w.calls++
	if w.calls == w.fail {
		return errors.New("disk full")
	}
	w.buf = append(w.buf, p...)
	return nil
}

// submitAll reads data into lent buffers and submits each with a write.
func submitAll(h *Hasher, data []byte, w *offsetWriter) error {
	var err error
	for off := 0; off < len(data); {
		b := h.Buffer()
		n := copy(b.Bytes(), data[off:])
		err = h.SubmitWrite(b, n, w.write)
		off += n
	}
	return err
}

// Bytes submitted with a write are written, in order, by the pipeline's
// own goroutine (PipeWritten counts them there), and hashed as Submit
// would: the caller only reads.
func TestSubmitWriteWritesInPipeline(t *testing.T) {
	algs := []Algorithm{mustLookup(t, "sha-256"), mustLookup(t, "crc32c")}
	data := randomBytes(3, 5<<20+17)
	h := NewHasher(algs)
	defer h.Close()
	var w offsetWriter
	written := PipeWritten()
	if err := submitAll(h, data, &w); err != nil {
		t.Fatal(err)
	}
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.buf, data) {
		t.Fatalf("written %d bytes, not the %d submitted in order", len(w.buf), len(data))
	}
	if got := PipeWritten() - written; got != int64(len(data)) {
		t.Errorf("the pipeline wrote %d bytes, want %d", got, len(data))
	}
	if got, want := h.Sums(), separateSums(algs, data); !reflect.DeepEqual(got, want) {
		t.Errorf("Sums = %v, want %v", got, want)
	}
}

// The first failed write is kept: Flush and WriteErr return it (also after
// Close), SubmitWrite returns it once known, and no write is attempted
// after it.
func TestSubmitWriteKeepsFirstError(t *testing.T) {
	h := NewHasher([]Algorithm{mustLookup(t, "sha-256")})
	w := offsetWriter{fail: 3}
	err := submitAll(h, randomBytes(4, 8*pipeSlot), &w)
	if ferr := h.Flush(); ferr == nil || ferr.Error() != "disk full" {
		t.Fatalf("Flush = %v, want the failed write's error", ferr)
	}
	if err != nil && err.Error() != "disk full" {
		t.Errorf("SubmitWrite returned %v", err)
	}
	if w.calls != 3 || len(w.buf) != 2*pipeSlot {
		t.Errorf("%d writes, %d bytes written; want 3 writes (none after the failure), %d bytes", w.calls, len(w.buf), 2*pipeSlot)
	}
	b := h.Buffer()
	if err := h.SubmitWrite(b, 10, w.write); err == nil || w.calls != 3 {
		t.Errorf("a SubmitWrite after the failure = %v with %d writes; want the error and no write", err, w.calls)
	}
	h.Close()
	if err := h.WriteErr(); err == nil {
		t.Errorf("the write error was lost with Close")
	}
}

// Without a pipeline (only inline algorithms) SubmitWrite writes before it
// returns, and hashes the bytes.
func TestSubmitWriteWithoutPipeline(t *testing.T) {
	algs := []Algorithm{mustLookup(t, "crc32c")}
	h := NewHasher(algs)
	defer h.Close()
	data := randomBytes(5, 1000)
	var w offsetWriter
	b := h.Buffer()
	n := copy(b.Bytes(), data)
	if err := h.SubmitWrite(b, n, w.write); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.buf, data) {
		t.Errorf("not written when SubmitWrite returned")
	}
	if got, want := h.Sums(), separateSums(algs, data); !reflect.DeepEqual(got, want) {
		t.Errorf("Sums = %v, want %v", got, want)
	}
	w.fail = w.calls + 1
	b = h.Buffer()
	if err := h.SubmitWrite(b, 5, w.write); err == nil {
		t.Errorf("a failed write was not returned")
	}
}
