package verify

import (
	"reflect"
	"testing"
)

// piped counts the algorithms a Hasher hands to goroutines.
func piped(algs []Algorithm) int {
	n := 0
	for _, a := range algs {
		if !a.Inline {
			n++
		}
	}
	return n
}

// Bytes read into a lent Buffer reach every hash without being copied:
// one handoff per Submit, none for Return, and the sums are those of the
// bytes in the order they were given, mixed with Writes.
func TestHasherBufferNoCopy(t *testing.T) {
	algs := []Algorithm{mustLookup(t, "sha-256"), mustLookup(t, "sha-512"), mustLookup(t, "crc32c")}
	data := randomBytes(7, 3<<20+11)
	h := NewHasher(algs)
	defer h.Close()
	h.Write(data[:100]) // below pipeFrom: hashed here
	copied, handoffs := PipeCopied(), PipeHandoffs()
	off, submits := 100, 0
	for off < len(data)-1000 {
		b := h.Buffer()
		n := copy(b.Bytes()[:min(len(b.Bytes()), 200<<10+submits)], data[off:])
		if submits == 2 {
			h.Return(b) // lent and given back: nothing hashed
			b = h.Buffer()
			n = copy(b.Bytes(), data[off:])
		}
		h.Submit(b, n)
		off += n
		submits++
	}
	if got := PipeCopied() - copied; got != 0 {
		t.Errorf("%d bytes copied into the pipeline, want 0", got)
	}
	if got := PipeHandoffs() - handoffs; got != int64(submits) {
		t.Errorf("%d handoffs for %d submitted buffers, want one each", got, submits)
	}
	h.Write(data[off:]) // a Write after Submits keeps the order
	if got, want := h.Sums(), separateSums(algs, data); !reflect.DeepEqual(got, want) {
		t.Errorf("Sums = %v, want %v", got, want)
	}
	if h.Written() != int64(len(data)) {
		t.Errorf("Written = %d, want %d", h.Written(), len(data))
	}
	if len(h.p.free) != pipeSlots {
		t.Errorf("%d slots free after Sums, want %d", len(h.p.free), pipeSlots)
	}
}

// A Write left in a partly filled slot is handed on before a submitted
// Buffer, so the hashes see the bytes in order.
func TestHasherBufferAfterPartialSlot(t *testing.T) {
	algs := []Algorithm{mustLookup(t, "sha-256")}
	data := randomBytes(8, pipeFrom+3000)
	h := NewHasher(algs)
	defer h.Close()
	h.Write(data[:pipeFrom+1000]) // starts the pipeline; 1000 bytes wait in a slot
	b := h.Buffer()
	n := copy(b.Bytes(), data[pipeFrom+1000:])
	h.Submit(b, n)
	if got, want := h.Sums(), separateSums(algs, data); !reflect.DeepEqual(got, want) {
		t.Errorf("Sums = %v, want %v", got, want)
	}
}

// Inline algorithms are hashed where the bytes are: no pipeline, no copy.
func TestHasherInlineNotPiped(t *testing.T) {
	algs := []Algorithm{mustLookup(t, "crc32c")}
	data := randomBytes(9, 2<<20)
	copied := PipeCopied()
	h := NewHasher(algs)
	defer h.Close()
	h.Write(data)
	b := h.Buffer()
	n := copy(b.Bytes(), data)
	h.Submit(b, n)
	if h.p != nil {
		t.Errorf("a pipeline started for %s alone", algs[0].Key)
	}
	if got := PipeCopied() - copied; got != 0 {
		t.Errorf("%d bytes copied into a pipeline, want 0", got)
	}
	if got, want := h.Sums(), separateSums(algs, append(append([]byte{}, data...), data[:n]...)); !reflect.DeepEqual(got, want) {
		t.Errorf("Sums = %v, want %v", got, want)
	}
}
