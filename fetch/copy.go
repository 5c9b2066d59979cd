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
