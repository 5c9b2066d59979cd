package fetch

import (
	"fmt"
	"io"
	"net/http"

	"github.com/hdig/hdig/verify"
)

// A Repr-Digest on the pieces only. An origin (or a cache in front of it)
// may send Repr-Digest with partial content and not with the first 200.
// It covers the whole representation all the same (RFC 9530 §3), so the
// first piece's field is adopted as the whole file's when the first
// response had none; every later piece must agree with it, as with the
// first response's, and the whole file is compared with it. Its
// algorithms were not known when hashing began: those not computed are
// computed over the finished file (rehash), a read of the file only for
// such an origin.

// noteLateRepr adopts the Repr-Digest of an origin's 206 to piece p when
// the first response sent none, or checks it against the one adopted.
func (d *download) noteLateRepr(resp *http.Response, p *piece) error {
	if d.ref.repr.Present {
		return nil // checkRange compared it with the first response's
	}
	f := reprField(resp.Header)
	if !f.Usable() {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.late.Usable() {
		d.late = f
		return nil
	}
	if alg, ok := differ(d.late, f); !ok {
		return protocolErrorf("piece %d (bytes %d-%d): Repr-Digest %s differs from an earlier piece's with the same ETag", p.id, p.start, p.end-1, alg)
	}
	return nil
}

// lateRef is the first response's fields with the pieces' Repr-Digest
// in place of the one it did not send.
func (d *download) lateRef() fields {
	ref := d.ref
	d.mu.Lock()
	defer d.mu.Unlock()
	if !ref.repr.Present && d.late.Usable() {
		ref.repr = d.late
	}
	return ref
}

// lateSums adds to sums those of the algorithms of the pieces' Repr-Digest
// that were not computed while the file landed, hashing the file again.
func (d *download) lateSums(sums []verify.Digest) []verify.Digest {
	d.mu.Lock()
	late := d.late
	d.mu.Unlock()
	want := map[string]bool{}
	for _, x := range late.Digests {
		want[x.Algorithm] = !hasSum(sums, x.Algorithm)
	}
	algs := pick(want)
	if len(algs) == 0 {
		return sums
	}
	more, err := d.rehash(algs)
	if err != nil {
		d.warn(fmt.Sprintf("read back %s to check the pieces' Repr-Digest: %v", d.part, err))
		return sums
	}
	return append(sums, more...)
}

// rehash hashes the whole file on disk with algs.
func (d *download) rehash(algs []verify.Algorithm) ([]verify.Digest, error) {
	h := verify.NewHasher(algs)
	defer h.Close()
	if _, err := io.Copy(h, io.NewSectionReader(d.f, 0, d.total)); err != nil {
		return nil, err
	}
	return h.Sums(), nil
}

func hasSum(sums []verify.Digest, alg string) bool {
	for _, s := range sums {
		if s.Algorithm == alg {
			return true
		}
	}
	return false
}
