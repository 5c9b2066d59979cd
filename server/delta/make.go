package delta

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
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
	known := true // every coding failed before (unmade): nothing new to tell
	for _, c := range h.inflatable(cur, codings) {
		d, err := h.deltaFile(ctx, cur, base, []string{c.Name})
		if err != nil && c.Name == patch.InflatedIM && ctx.Err() == nil && !errors.Is(err, errTargetChanged) {
			// Not tried again for this version, whatever the reason: a
			// delta not stored is made again by every request.
			if !errors.Is(err, patch.ErrNothingInflated) {
				h.log.Warn("delta", "im", c.Name, "file", cur.File, "err", err)
			}
			h.flat.Add(cur.ETag)
			continue
		}
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, errTargetChanged) {
				return nil, err
			}
			errs = append(errs, fmt.Sprintf("%s: %v", c.Name, err))
			known = known && errors.Is(err, errUnmade)
			continue
		}
		if c.Name == patch.InflatedIM && len(accepted(aim, []string{"vcdiff"})) > 0 {
			// Plain VCDIFF may still be smaller (streams that did not
			// change cost a little more expanded): make it too.
			if v, err := h.deltaFile(ctx, cur, base, []string{"vcdiff"}); err == nil && v.size < d.size {
				return v, nil
			}
		}
		if c.Name == "vcdiff" || c.Name == patch.InflatedIM {
			return d, nil // inherently compressed (RFC 3229 §10.9)
		}
		if zs := acceptedAfter(aim, c.Name, compressions); len(zs) > 0 {
			if dz, err := h.deltaFile(ctx, cur, base, []string{c.Name, zs[0].Name}); err == nil && dz.size < d.size {
				return dz, nil
			}
		}
		return d, nil
	}
	if known && len(errs) > 0 {
		return nil, fmt.Errorf("no delta-coding worked: %w", errUnmade)
	}
	return nil, fmt.Errorf("no delta-coding worked: %s", strings.Join(errs, "; "))
}

// errUnmade marks a delta remembered as one its coding cannot make
// (Handler.unmade): the failure was logged when it was new.
var errUnmade = errors.New("could not be made before")

// inflatable returns codings without hdig-vcdiff-inflated when it gave no
// delta for the current version before (flat).
func (h *Handler) inflatable(cur *server.Representation, codings []patch.Manipulation) []patch.Manipulation {
	if !h.flat.Has(cur.ETag) {
		return codings
	}
	var out []patch.Manipulation
	for _, c := range codings {
		if c.Name != patch.InflatedIM {
			out = append(out, c)
		}
	}
	return out
}

// errTargetChanged marks a current representation whose bytes did not
// have the sha-256 its ETag names while the delta was made.
var errTargetChanged = errors.New("the file changed while its delta was made")

// deltaPrefix is the part of a delta's name that names its base.
func deltaPrefix(baseSum []byte) string { return hex.EncodeToString(baseSum) }

// deltaName keys a delta by the sha-256 of both ends (its base and its
// target) and the manipulations: a delta is found only for the bytes it
// was made from and to, whatever file or ETag asked for it.
func deltaName(baseSum, curSum []byte, ims []string) string {
	return deltaPrefix(baseSum) + "-" + hex.EncodeToString(curSum) + "." + strings.Join(ims, "+")
}

// deltaFile returns the cached delta for (base, current, ims), making it
// first if needed. Concurrent requests for the same delta make it once;
// at most cap(h.encodes) deltas are made at a time, and a request that is
// cancelled stops waiting and stops its encode. A delta is stored only
// when the target bytes read had the sha-256 the ETag names and the delta
// applied to the base rebuilds exactly those bytes.
func (h *Handler) deltaFile(ctx context.Context, cur *server.Representation, base version, ims []string) (*made, error) {
	baseSum, ok1 := tagSum(base.ETag)
	curSum, ok2 := tagSum(cur.ETag)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("ETag %s or %s is not derived from sha-256", base.ETag, cur.ETag)
	}
	name := deltaName(baseSum, curSum, ims)
	path := filepath.Join(h.dir, "deltas", name)
	defer h.lock(path)()
	if fi, err := os.Stat(path); err == nil {
		return &made{path: path, size: fi.Size(), ims: ims}, nil
	}
	if h.unmade.Has(name) {
		return nil, fmt.Errorf("%w: %s %w", patch.ErrUnsupported, strings.Join(ims, "+"), errUnmade)
	}
	select {
	case h.encodes <- struct{}{}:
		defer func() { <-h.encodes }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if encodeHook != nil {
		encodeHook(ctx)
	}
	start := time.Now()
	b, err := h.openBlob(cur.File, base)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	// Checked as made (rebuilds): the file is remembered as checked, not
	// rebuilt again by the checkOnce of the 226 that sends it.
	cannot := false // the coding cannot express these very two versions
	id, err := writeAtomicID(path, func(w io.Writer) error {
		f := w.(*os.File)
		sum := sha256.New()
		target := io.TeeReader(ctxReader{ctx, io.NewSectionReader(cur.Content, 0, cur.Size)}, sum)
		// VCDIFF goes without xdelta3's checksum extension: plain RFC 3284,
		// which any decoder reads; Repr-Digest proves the result.
		if err := patch.EncodeList(ims, b, base.Size, target, f, patch.WithChecksum(false)); err != nil {
			if errors.Is(err, patch.ErrUnsupported) || errors.Is(err, patch.ErrLimit) {
				// Remembered only when the bytes refused were the version
				// named: a file rewritten during the read is tried again.
				_, cerr := io.Copy(io.Discard, target)
				cannot = cerr == nil && bytes.Equal(sum.Sum(nil), curSum)
			}
			return err
		}
		if !bytes.Equal(sum.Sum(nil), curSum) {
			return errTargetChanged
		}
		return rebuilds(f, ims, b, base.Size, []verify.Digest{{Algorithm: "sha-256", Value: curSum}})
	})
	if cannot {
		h.unmade.Add(name)
	}
	if err != nil {
		return nil, err
	}
	if ims[0] != patch.InflatedIM {
		// Expanding both versions and coding them is slower than the
		// plain codings the estimate of slow() is for.
		h.measured(base.Size+cur.Size, time.Since(start))
	}
	h.remember(path, id)
	h.idxMu.Lock()
	h.deltasFrom[deltaPrefix(baseSum)] = append(h.deltasFrom[deltaPrefix(baseSum)], name)
	h.idxMu.Unlock()
	return &made{path: path, size: id.Size, ims: ims}, nil
}

// rebuilds checks that the delta in f, applied to the base, gives bytes
// with the digests want.
func rebuilds(f io.ReadSeeker, ims []string, base io.ReaderAt, baseSize int64, want []verify.Digest) error {
	rebuildWork.Add(1)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var algs []verify.Algorithm
	for _, d := range want {
		a, ok := verify.Lookup(d.Algorithm)
		if !ok {
			return fmt.Errorf("unknown algorithm %s", d.Algorithm)
		}
		algs = append(algs, a)
	}
	hs := verify.NewHasher(algs)
	defer hs.Close()
	if err := patch.Undo(ims, base, baseSize, f, hs); err != nil {
		return fmt.Errorf("the delta does not decode: %w", err)
	}
	got := hs.Sums()
	for i, d := range want {
		if !bytes.Equal(got[i].Value, d.Value) {
			return fmt.Errorf("the delta rebuilds %s %s, want %s", d.Algorithm, verify.Base64(got[i].Value), verify.Base64(d.Value))
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return nil
}

// rebuildWork counts the deltas rebuilt to be checked (tests count them).
var rebuildWork atomic.Int64

// encodeHook, when set (by tests), runs while an encode holds its slot,
// with the encode's context (inBackground tells whether it is made off
// the request path).
var encodeHook func(ctx context.Context)

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
