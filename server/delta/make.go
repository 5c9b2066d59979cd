package delta

import (
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/server"
)

// made is a delta on disk.
type made struct {
	path string
	size int64
	ims  []string // the IM field: manipulations in the order applied
}

// encoder makes a delta-coding from base to target.
type encoder func(base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer, opts ...patch.Option) error

// encoders are the delta-codings the origin produces. VCDIFF is written
// without xdelta3's checksum extension: plain RFC 3284, which any decoder
// reads; Repr-Digest proves the result.
var encoders = map[string]encoder{
	"vcdiff": func(b io.ReaderAt, n int64, t io.Reader, out io.Writer, o ...patch.Option) error {
		return patch.EncodeVCDIFF(b, n, t, out, append(o, patch.WithChecksum(false))...)
	},
	"gdiff": patch.EncodeGDIFF,
	"diffe": patch.EncodeDiffE,
}

// bestDelta makes (or finds cached) the delta by the first coding that
// works, best qvalue first, compressed afterwards when the client accepts
// a compression listed after the coding and it makes the delta smaller.
func (h *Handler) bestDelta(cur *server.Representation, base version, codings []manipulation, aim []manipulation) (*made, error) {
	var errs []string
	for _, c := range codings {
		d, err := h.deltaFile(cur, base, []string{c.name})
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", c.name, err))
			continue
		}
		if c.name == "vcdiff" {
			return d, nil // inherently compressed (RFC 3229 §10.9)
		}
		for _, z := range accepted(aim, compressions) {
			if z.pos < c.pos {
				continue
			}
			if dz, err := h.deltaFile(cur, base, []string{c.name, z.name}); err == nil && dz.size < d.size {
				return dz, nil
			}
			break
		}
		return d, nil
	}
	return nil, fmt.Errorf("no delta-coding worked: %s", strings.Join(errs, "; "))
}

// deltaFile returns the cached delta for (base, current, ims), making it
// first if needed. Concurrent requests for the same delta make it once.
func (h *Handler) deltaFile(cur *server.Representation, base version, ims []string) (*made, error) {
	bn, _ := tagName(base.ETag)
	cn, ok := tagName(cur.ETag)
	if !ok {
		return nil, fmt.Errorf("current ETag %s is not usable", cur.ETag)
	}
	path := filepath.Join(h.dir, "deltas", fileKey(cur.File)+"-"+bn+"-"+cn+"."+strings.Join(ims, "+"))
	lock := h.fileLock(path)
	lock.Lock()
	defer lock.Unlock()
	if fi, err := os.Stat(path); err == nil {
		return &made{path: path, size: fi.Size(), ims: ims}, nil
	}
	b, err := h.openBlob(cur.File, base)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	err = writeAtomic(path, func(w io.Writer) error {
		return encode(ims, b, base.Size, io.NewSectionReader(cur.Content, 0, cur.Size), w)
	})
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return &made{path: path, size: fi.Size(), ims: ims}, nil
}

// encode applies ims in order: a delta-coding, then optionally gzip or
// deflate over the delta.
func encode(ims []string, base io.ReaderAt, baseSize int64, target io.Reader, out io.Writer) error {
	enc, ok := encoders[ims[0]]
	if !ok {
		return fmt.Errorf("unsupported delta-coding %q", ims[0])
	}
	var zw io.WriteCloser
	if len(ims) > 1 {
		switch ims[1] {
		case "gzip":
			zw = gzip.NewWriter(out)
		case "deflate":
			zw = zlib.NewWriter(out)
		default:
			return fmt.Errorf("unsupported compression %q", ims[1])
		}
		out = zw
	}
	if err := enc(base, baseSize, target, out); err != nil {
		return err
	}
	if zw != nil {
		return zw.Close()
	}
	return nil
}
