package fetch

import (
	"io"

	"github.com/hdig/hdig/verify"
)

// copyHashed copies r to w and hashes every byte read with h, reading
// straight into h's pipeline buffers (verify.Hasher.Buffer): each read is
// written to w from there, and a buffer is handed to the hash once full,
// so the bytes are neither copied again nor handed on in small pieces. It
// returns the bytes written; bytes read are hashed even when w fails, as
// io.TeeReader would have.
func copyHashed(w io.Writer, r io.Reader, h *verify.Hasher) (int64, error) {
	var n int64
	for {
		b := h.Buffer()
		buf, k, err := b.Bytes(), 0, error(nil)
		for k < len(buf) && err == nil {
			var m int
			m, err = r.Read(buf[k:])
			if m > 0 {
				wn, werr := w.Write(buf[k : k+m])
				k, n = k+m, n+int64(wn)
				if werr == nil && wn != m {
					werr = io.ErrShortWrite
				}
				if werr != nil {
					h.Submit(b, k)
					return n, werr
				}
			}
		}
		h.Submit(b, k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// copyBehind copies r to w as copyHashed does, but the writes to w are
// made by h's pipeline (verify.Hasher.SubmitWrite) while this goroutine
// reads on: for a local source (a cached version), where reading is cheap
// and writing and hashing are the work. w is written from one goroutine at
// a time, the last write done when copyBehind returns. It returns the
// bytes read, and the first error of a read or a write.
func copyBehind(w io.Writer, r io.Reader, h *verify.Hasher) (int64, error) {
	write := func(p []byte) error {
		n, err := w.Write(p)
		if err == nil && n != len(p) {
			err = io.ErrShortWrite
		}
		return err
	}
	var n int64
	for {
		b := h.Buffer()
		k, err := io.ReadFull(r, b.Bytes())
		n += int64(k)
		werr := h.SubmitWrite(b, k, write)
		if werr == nil && (err == io.EOF || err == io.ErrUnexpectedEOF) {
			return n, h.Flush()
		}
		if werr == nil && err != nil {
			h.Flush()
			return n, err
		}
		if werr != nil {
			return n, werr
		}
	}
}
