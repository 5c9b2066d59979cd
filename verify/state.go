package verify

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
)

// The saved state of a Hasher lets a resumed download continue hashing where
// it stopped instead of re-reading the bytes already on disk (style.md §7).
//
// Format, version 1 (all integers unsigned varints):
//
//	"hdig-hasher" 0x01
//	count                      bytes hashed so far
//	n                          number of algorithms
//	n × (len key, key, len state, state)
//
// where state is the algorithm's encoding.BinaryMarshaler output. The
// algorithms must be the same, in the same order, when restoring.

const (
	stateMagic   = "hdig-hasher"
	stateVersion = 1
	// maxStateLen bounds one algorithm's state: sha-512's is about 200
	// bytes, the checksums' a dozen.
	maxStateLen = 1 << 10
	maxKeyLen   = 64
)

// ErrHasherState is returned, wrapped, by UnmarshalBinary for a saved state
// that is corrupt, of another version, or of other algorithms.
var ErrHasherState = errors.New("invalid hasher state")

// MarshalBinary saves the count of bytes hashed and the state of every
// algorithm (encoding.BinaryMarshaler).
//
// A Hasher is not safe for concurrent use, and MarshalBinary must not run
// concurrently with Write; between Writes it needs no Close: it first waits
// for the worker goroutines to hash everything written, and that wait
// orders their updates before this read. Hashing can go on, with its
// workers, afterwards.
func (h *Hasher) MarshalBinary() ([]byte, error) {
	h.wait()
	b := append([]byte(stateMagic), stateVersion)
	b = binary.AppendUvarint(b, uint64(h.n))
	b = binary.AppendUvarint(b, uint64(len(h.hashes)))
	for i, x := range h.hashes {
		m, ok := x.(encoding.BinaryMarshaler)
		if !ok {
			return nil, fmt.Errorf("save hasher state: %s cannot save its state", h.algs[i].Key)
		}
		st, err := m.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("save hasher state: %s: %w", h.algs[i].Key, err)
		}
		b = appendBytes(b, []byte(h.algs[i].Key))
		b = appendBytes(b, st)
	}
	return b, nil
}

// UnmarshalBinary restores a state saved by MarshalBinary into a Hasher made
// with the same algorithms in the same order. It checks everything before it
// changes anything: on error the Hasher is as it was. Like MarshalBinary, it
// must not run concurrently with Write, and needs no Close.
func (h *Hasher) UnmarshalBinary(data []byte) error {
	h.wait()
	n, states, err := h.decodeState(data)
	if err != nil {
		return err
	}
	for i, x := range h.hashes {
		// Cannot fail: the same state restored into a fresh hash of the
		// same algorithm in decodeState.
		if err := x.(encoding.BinaryUnmarshaler).UnmarshalBinary(states[i]); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrHasherState, h.algs[i].Key, err)
		}
	}
	h.n = n
	return nil
}

// decodeState parses and checks a saved state, returning the count and each
// algorithm's state.
func (h *Hasher) decodeState(data []byte) (int64, [][]byte, error) {
	bad := func(format string, a ...any) (int64, [][]byte, error) {
		return 0, nil, fmt.Errorf("%w: %s", ErrHasherState, fmt.Sprintf(format, a...))
	}
	if len(data) < len(stateMagic)+1 || string(data[:len(stateMagic)]) != stateMagic {
		return bad("not a saved hasher state")
	}
	if v := data[len(stateMagic)]; v != stateVersion {
		return bad("version %d, want %d", v, stateVersion)
	}
	r := stateReader{b: data[len(stateMagic)+1:]}
	count := r.uvarint()
	algs := r.uvarint()
	if r.err != nil {
		return bad("%v", r.err)
	}
	if count > 1<<62 {
		return bad("byte count %d out of range", count)
	}
	if algs != uint64(len(h.hashes)) {
		return bad("%d algorithms, want %d", algs, len(h.hashes))
	}
	states := make([][]byte, len(h.hashes))
	for i, a := range h.algs {
		key := r.bytes(maxKeyLen)
		st := r.bytes(maxStateLen)
		if r.err != nil {
			return bad("%s: %v", a.Key, r.err)
		}
		if string(key) != a.Key {
			return bad("algorithm %d is %q, want %q", i+1, key, a.Key)
		}
		u, ok := a.New().(encoding.BinaryUnmarshaler)
		if !ok {
			return bad("%s cannot restore its state", a.Key)
		}
		if err := u.UnmarshalBinary(st); err != nil {
			return bad("%s: %v", a.Key, err)
		}
		states[i] = st
	}
	if len(r.b) != 0 {
		return bad("%d trailing bytes", len(r.b))
	}
	return int64(count), states, nil
}

func appendBytes(b, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

// stateReader reads varints and length-prefixed byte strings, keeping the
// first error.
type stateReader struct {
	b   []byte
	err error
}

func (r *stateReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("truncated or overlong number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *stateReader) bytes(limit int) []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(limit) {
		r.err = fmt.Errorf("length %d over the limit of %d", n, limit)
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("length %d, only %d bytes left", n, len(r.b))
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}
