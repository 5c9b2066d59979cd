package delta

import (
	"context"
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

// bestDelta makes (or finds cached) the delta by the first coding that
// works, best qvalue first, compressed afterwards when the client accepts
// a compression listed after the coding and it makes the delta smaller.
func (h *Handler) bestDelta(ctx context.Context, cur *server.Representation, base version, codings []patch.Manipulation, aim []patch.Manipulation) (*made, error) {
	var errs []string
	for _, c := range codings {
		d, err := h.deltaFile(ctx, cur, base, []string{c.Name})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			errs = append(errs, fmt.Sprintf("%s: %v", c.Name, err))
			continue
		}
		if c.Name == "vcdiff" {
			return d, nil // inherently compressed (RFC 3229 §10.9)
		}
		for _, z := range accepted(aim, compressions) {
			if z.Pos < c.Pos {
				continue
			}
			if dz, err := h.deltaFile(ctx, cur, base, []string{c.Name, z.Name}); err == nil && dz.size < d.size {
				return dz, nil
			}
			break
		}
		return d, nil
	}
	return nil, fmt.Errorf("no delta-coding worked: %s", strings.Join(errs, "; "))
}

// deltaFile returns the cached delta for (base, current, ims), making it
// first if needed. Concurrent requests for the same delta make it once;
// at most cap(h.encodes) deltas are made at a time, and a request that is
// cancelled stops waiting and stops its encode.
func (h *Handler) deltaFile(ctx context.Context, cur *server.Representation, base version, ims []string) (*made, error) {
	bn, _ := tagName(base.ETag)
	cn, ok := tagName(cur.ETag)
	if !ok {
		return nil, fmt.Errorf("current ETag %s is not usable", cur.ETag)
	}
	path := filepath.Join(h.dir, "deltas", fileKey(cur.File)+"-"+bn+"-"+cn+"."+strings.Join(ims, "+"))
	defer h.lock(path)()
	if fi, err := os.Stat(path); err == nil {
		return &made{path: path, size: fi.Size(), ims: ims}, nil
	}
	select {
	case h.encodes <- struct{}{}:
		defer func() { <-h.encodes }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if encodeHook != nil {
		encodeHook()
	}
	b, err := h.openBlob(cur.File, base)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	err = writeAtomic(path, func(w io.Writer) error {
		// VCDIFF goes without xdelta3's checksum extension: plain RFC 3284,
		// which any decoder reads; Repr-Digest proves the result.
		return patch.EncodeList(ims, b, base.Size, ctxReader{ctx, io.NewSectionReader(cur.Content, 0, cur.Size)}, w, patch.WithChecksum(false))
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

// encodeHook, when set (by tests), runs while an encode holds its slot.
var encodeHook func()

// ctxReader stops reading once ctx is done, so an encode for a client that
// has gone away stops early.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
