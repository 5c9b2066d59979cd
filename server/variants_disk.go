package server

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/hdig/hdig/fileid"
)

// The variants kept in a state directory: files named IDHEX.ENC.ENCHEX in
// DIR/variants (a diskStore), within a disk budget.

func (vs *variantStore) openDisk(key, enc string, src io.Reader, sum []byte) (*variant, error) {
	f, name, size, err := vs.disk.open(key)
	if err == nil {
		return diskVariant(key, name, f, size), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	name, err = vs.disk.write(key, func(w io.Writer) ([]byte, error) {
		return vs.compressChecked(w, src, enc, sum)
	})
	if err != nil {
		return nil, err
	}
	f, size, err = openSized(vs.disk.path(name))
	if err != nil {
		return nil, err
	}
	return diskVariant(key, name, f, size), nil
}

// diskVariant is a variant file; its name ends in the hex sha-256 of its
// bytes.
func diskVariant(key, name string, f *os.File, size int64) *variant {
	id, _ := fileid.File(f) // on error the zero ID: version() falls back on the size
	return &variant{key: key, content: f, size: size, sum: storedSum(name), id: id, release: func() { f.Close() }}
}
