package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/hdig/hdig/verify"
)

// How a response's body maps onto a piece.
type bodyMode int

const (
	modeRange bodyMode = iota // a checked 206 for the piece's missing bytes
	modeHead                  // the first 200, read up to the piece's end
	modeWhole                 // a full response, read to its end
)

// transfer runs the plan: the first response feeds piece 0 and up to
// d.parallel workers take the other pieces in order (by default only once
// one stream proves slow: onestream.go).
func (d *download) transfer(ctx context.Context, first *reply, mode bodyMode) error {
	if err := d.req.Limits.checkLength(d.total); err != nil {
		first.close()
		return err
	}
	d.prog.Start(d.total, d.before.size())
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	queue := make(chan *piece, len(d.pieces))
	for _, p := range d.pieces[1:] {
		queue <- p
	}
	close(queue)
	var (
		wg       sync.WaitGroup
		failOnce sync.Once
		failed   error
	)
	fail := func(err error) { failOnce.Do(func() { failed = err; cancel(err) }) }
	g := d.gate(gctx, mode)
	defer g.stop()
	for w := range max(1, min(d.parallel, len(d.pieces))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, copyBufSize)
			if w == 0 {
				defer g.alone()
				if err := d.firstStream(gctx, first, mode, buf, queue, g); err != nil {
					fail(err)
					return
				}
			} else if !g.wait(gctx) {
				return
			}
			for p := range queue {
				if gctx.Err() != nil {
					return
				}
				if err := d.piece(gctx, p, nil, modeRange, buf, nil); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Canceled
	}
	return failed
}

// piece fetches one piece, retrying from where it stopped, and fetching
// it again whole when its bytes fail its Content-Digest (refetch.go).
// src is the source of its range requests (nil: the origin; mirrors.go).
func (d *download) piece(ctx context.Context, p *piece, r *reply, mode bodyMode, buf []byte, src *source) error {
	size := int64(-1)
	if p.end >= 0 {
		size = p.end - p.start
	}
	bar := d.prog.Piece(p.id, size, p.next.Load())
	refetched := 0
	for attempt := 0; ; attempt++ {
		err := d.attempt(ctx, p, r, mode, buf, bar, src)
		if err == nil {
			bar.Done(true)
			d.pieceDone(p)
			return nil
		}
		// (Once the download failed, other pieces' errors carry its cause.)
		var pm *pieceMismatch
		if errors.As(err, &pm) && ctx.Err() == nil {
			if refetched >= d.refetches() || !d.canResume() || !d.refetch(p, pm) {
				bar.Done(false)
				return d.failPiece(pm, refetched)
			}
			refetched++
			bar.Done(false)
			bar = d.prog.Piece(p.id, size, 0) // its bytes start over
			r, mode = nil, modeRange
			continue
		}
		if !retryable(err) || attempt >= d.req.Retry || ctx.Err() != nil || !d.canResume() {
			bar.Done(false)
			return err
		}
		d.retries.Add(1)
		if !sleep(ctx, d.req.backoff(attempt)) {
			bar.Done(false)
			return context.Canceled
		}
		r, mode = nil, modeRange
	}
}

// attempt reads one response into the piece: r, or a new range request
// for the piece's missing bytes.
func (d *download) attempt(ctx context.Context, p *piece, r *reply, mode bodyMode, buf []byte, bar PieceProgress, src *source) (err error) {
	from := p.at()
	if r == nil {
		d.ranged.Store(true)
		if r, err = d.sendTo(ctx, src, http.MethodGet, from, p.end, d.validator(src)); err != nil {
			var se *StatusError
			if (src == nil || src.origin) && errors.As(err, &se) && se.Code == http.StatusRequestedRangeNotSatisfiable {
				// The origin's representation no longer holds the range:
				// another version, as another length is (versionDiffers),
				// and as a 416 to a resume's first answer is (resumeFailed).
				return fmt.Errorf("%w: piece %d: 416 to bytes %d-%d", errRestart, p.id, from, p.end-1)
			}
			return err
		}
	}
	defer func() {
		if err != nil || !r.hold || mode != modeHead {
			r.close()
		}
	}()
	limit := int64(-1)
	if p.end >= 0 {
		limit = p.end - from
	}
	var h *verify.Hasher
	if mode == modeRange {
		if err := d.checkPieceFrom(src, r.resp, p, from); err != nil {
			return err
		}
		if algs := d.pieceAlgorithms(r.resp); len(algs) > 0 {
			h = verify.NewHasher(algs)
			defer h.Close()
		}
	}
	idle := newIdleReader(r.resp.Body, d.c.timeout, r.cancel)
	defer idle.stop()
	body := &countingReader{r: idle}
	err = d.stream(p, body, limit, h, buf, bar)
	if err == nil && mode != modeHead && limit >= 0 {
		err = expectEOF(body)
	}
	d.received.Add(body.count())
	if err != nil {
		return d.c.bodyError(r.ctx, err, body.count(), limit)
	}
	switch mode {
	case modeWhole:
		d.trailer = responseFields(r.resp.Trailer)
	case modeRange:
		if err := d.verifyPiece(r.resp, p, from, h); err != nil {
			return err
		}
		return d.pieceTrailer(src, r.resp, p, from)
	}
	return nil
}

// stream copies up to limit bytes (-1: to EOF) from r to the piece's
// offsets, through the piece hasher h and the prefix hasher. At the
// prefix hash's watermark it reads into the prefix hasher's own buffer
// (prefixHash.lend), so those bytes are hashed without a copy.
func (d *download) stream(p *piece, r *countingReader, limit int64, h *verify.Hasher, buf []byte, bar PieceProgress) error {
	for limit != 0 {
		off := p.at()
		lent := d.ph.lend(off)
		b := buf
		if lent != nil {
			b = lent.Bytes()
		}
		if limit > 0 && limit < int64(len(b)) {
			b = b[:limit]
		}
		b = d.req.Limits.readCap(off, b)
		n, err := io.ReadFull(r, b)
		if werr := d.land(p, off, b[:n], h, lent); werr != nil {
			return werr
		}
		bar.Add(n)
		if limit > 0 {
			limit -= int64(n)
		}
		switch {
		case err == nil:
		case (err == io.EOF || err == io.ErrUnexpectedEOF) && limit < 0:
			return nil
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return &readError{err: io.ErrUnexpectedEOF}
		default:
			return err
		}
	}
	return nil
}

// land writes b (read from the piece p's body) at off and hashes it: with
// the piece hasher h, and with the prefix hasher, to which it gives back
// the buffer lent (nil: b is the caller's) in every case. Bytes in a lent
// buffer at the watermark are written by the prefix hasher's pipeline
// (prefixHash.landLent), so this goroutine reads on meanwhile.
func (d *download) land(p *piece, off int64, b []byte, h *verify.Hasher, lent *verify.Buffer) error {
	var err error
	if len(b) > 0 {
		err = d.req.Limits.checkOutput(off+int64(len(b)), 0, false) // a stream of unknown length over --max-filesize
	}
	if err != nil || len(b) == 0 {
		if lent != nil {
			d.ph.landLent(off, lent, 0, nil)
		}
		return err
	}
	if h != nil {
		h.Write(b)
	}
	if lent != nil {
		err = d.ph.landLent(off, lent, len(b), d.writerAt(off))
	} else if err = d.writerAt(off)(b); err == nil {
		d.ph.wrote(off, b)
	}
	if err != nil {
		return err
	}
	p.next.Add(int64(len(b)))
	return nil
}

// writerAt returns a function that writes its bytes to the part file at
// off, its errors tagged as the output's.
func (d *download) writerAt(off int64) func([]byte) error {
	f := d.f
	return func(b []byte) error {
		if _, err := f.WriteAt(b, off); err != nil {
			return &writeError{err: err}
		}
		return nil
	}
}

// expectEOF reads the end of a body (so its trailer arrives), failing if
// more bytes come than the length said.
func expectEOF(r io.Reader) error {
	var one [1]byte
	n, err := r.Read(one[:])
	if n == 0 && err == nil {
		n, err = io.ReadFull(r, one[:])
	}
	switch {
	case n > 0:
		return protocolErrorf("the body is longer than announced")
	case err == io.EOF:
		return nil
	}
	return err
}

// pieceDone notes a finished piece and saves the sidecar, so even a killed
// hdig leaves a resumable part.
func (d *download) pieceDone(p *piece) {
	if len(d.pieces) > 1 {
		d.saveSidecar()
	}
}
