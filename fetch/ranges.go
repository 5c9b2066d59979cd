package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// copyBufSize is the read size of every body copy: few system calls, and
// N pieces still keep memory flat.
const copyBufSize = 256 << 10

// copyBufs keeps the body-copy buffers of finished requests for the next:
// a run of many small requests (zsync's batches of ranges, retries) reuses
// a few rather than touching fresh memory for each.
var copyBufs = sync.Pool{New: func() any { return new([copyBufSize]byte) }}

// DownloadOptions configure Client.Download.
type DownloadOptions struct {
	// Parallel is the number of concurrent range pieces: 0 chooses from
	// the size (AutoParallel), used once one stream proves slow
	// (onestream.go); 1 is one stream; at most MaxParallel.
	Parallel int
	// Continue resumes PATH.hdig-part (-C); see Client.Download.
	Continue bool
	// Scratch says PATH is a name of hdig's own (-J's hidden file,
	// ClearScratch): used as itself, no symbolic link at it followed nor
	// the mode of a file there taken (NewScratchSink).
	Scratch bool
	// Progress sees the bytes arrive; nil shows nothing.
	Progress Progress
	// PieceSize sets the size of the pieces; 0 chooses from the size.
	PieceSize int64
	// Mirrors are other URLs of the same representation (--mirror), and
	// LinkMirrors how many of the origin's Link rel=duplicate targets are
	// added to them (0: none). See mirrors.go.
	Mirrors     []string
	LinkMirrors int

	// splitAfter and slowStream override the default split's interval
	// and rate (onestream.go) for tests; 0: the defaults.
	splitAfter time.Duration
	slowStream int64
}

// Download fetches req (a GET without body, Ranges or Compressed) into
// path. The bytes go to path.hdig-part and are renamed onto path only once
// verified; path is never replaced or truncated by unverified bytes.
//
// The first request is a plain GET, as curl's. When its 200 carries a
// strong ETag, a Content-Length, Accept-Ranges: bytes and no digest in a
// trailer, and the size calls for more than one connection, the rest is
// fetched in pieces by concurrent Range requests with If-Range, each 206
// checked (same ETag, same length, the range asked, same Repr-Digest, its
// own Content-Digest) and written at its offset. A 200 to a range (the
// origin ignores Range, or the file changed) restarts the download as one
// plain stream: two versions are never spliced. Repr-Digest is computed
// over the contiguous prefix while pieces land. A failed piece is retried
// req.Retry times, from where it stopped.
//
// An interrupted download (ctx cancelled) leaves the part and its sidecar
// (path.hdig-resume: ETag, length, bytes on disk, the saved hash state) and
// returns context.Canceled; with Continue any other failure that does not
// prove the bytes wrong keeps them too. See resume for what Continue does.
//
// With req.Delta holding a cached base version of the URL (and without
// Continue), the fetch goes through Get instead, into a FileSink: a 226
// delta beats any number of pieces. A verified download is stored in the
// cache as a base version, as Get does.
func (c *Client) Download(ctx context.Context, req *Request, path string, o DownloadOptions) (*Result, error) {
	ctx = withCredentialsFor(ctx, req.URL)
	if o.Progress == nil {
		o.Progress = NoProgress{}
	}
	if o.Parallel < 0 || o.Parallel > MaxParallel {
		o.Progress.Finish()
		return nil, fmt.Errorf("parallel %d: want 0 (automatic) to %d", o.Parallel, MaxParallel)
	}
	var err error
	if !o.Scratch {
		if path, err = fileOutput(path); err != nil { // a symbolic link is written through
			o.Progress.Finish()
			return nil, err
		}
	}
	dl := req.Delta
	if req.Conditional() || dl != nil && dl.Cache != nil && !o.Continue && c.offers(dl, req.URL) {
		// The caller's own conditions make one conditional GET (its 304
		// leaves path alone); a cached base version or a matching
		// dictionary: a 226 delta or a dcb/dcz body beats any number of
		// pieces.
		defer o.Progress.Finish()
		os.Remove(path + SidecarSuffix) // as a fresh download drops it: the part is started over
		sink, err := newSink(path, o.Scratch)
		if err != nil {
			return nil, &writeError{err: err}
		}
		return c.Get(ctx, req, sink)
	}
	d := &download{c: c, req: req, path: path, part: path + PartSuffix, side: path + SidecarSuffix, o: o, prog: o.Progress}
	d.hooks()
	var res *Result
	if o.Continue {
		res, err = d.resume(ctx)
	} else {
		res, err = d.fresh(ctx, true)
	}
	d.prog.Finish()
	res, err = d.end(res, err)
	if err == nil && dl != nil && dl.Cache != nil && res.Strategy != StrategyNotModified {
		if !o.Scratch { // the caller renames a scratch file at once (Get)
			storeLinked(dl.Cache, res, path)
		}
		storeDictFile(dl.Cache, res, path)
	}
	return res, err
}

// download is the state of one Client.Download.
type download struct {
	c          *Client
	req        *Request
	path       string
	part, side string
	o          DownloadOptions
	prog       Progress
	hook       sync.Mutex

	f           *os.File
	url         string   // after redirects
	etag        string   // strong validator, or ""
	modified    modified // the version's Last-Modified (lastmodified.go)
	total       int64    // -1 unknown
	status      int
	header      http.Header
	answers     *http.Request // the request header answers (signatures' `req`)
	ref         fields        // what the whole file must match
	refStatus   int           // 200: ref covers the whole; 206: Repr-Digest only
	trailer     fields        // a whole stream's trailer
	algs        []verify.Algorithm
	hasher      *verify.Hasher
	ph          *prefixHash
	pieces      []*piece
	before      spans // on disk before this run's pieces
	vouched     spans // the spans a saved sidecar listed once the part was synced (guarded by mu; syncVouched)
	parallel    int
	resumed     bool                      // bytes of an earlier run are in the file
	spool       bool                      // f is a HeldSink's spill file (Hold): no part, no sidecar
	respool     func(size int64) *os.File // a better spool for a body of that length, or nil (HeldSink.respool)
	savedRepr   string                    // the Repr-Digest a loaded sidecar recorded
	savedCoding string                    // the content coding a loaded sidecar recorded ("": unknown)
	// wholeContent is the Content-Digest (its field value) of the 200 the
	// file is the content of: this run's first response's, or the one a
	// sidecar recorded of the version its strong ETag names (resumePieces).
	// A 200's content is the whole representation, so it proves the file
	// however many runs and ranges assembled it; "" without one usable.
	wholeContent string
	late         verify.DigestField // the pieces' Repr-Digest when the first response had none (guarded by mu; laterepr.go)
	restarts     int
	wrong        bool       // the whole did not match (narrow): the part holds bytes known wrong
	mirrored     bool       // the part may hold bytes of mirrors an earlier run asked (sidecar.Mirrored)
	mir          *mirrorSet // sources and scheduler with mirrors (mirrors.go)

	received atomic.Int64
	ranged   atomic.Bool // a Range request was sent (else one stream)
	retries  atomic.Int64
	mu       sync.Mutex // guards what follows, and sidecar writes
	digests  map[span]string
	checks   []verify.Check
	warnings []string
}

// errRestart: a piece got a 200, or a 206 of another version.
var errRestart = errors.New("the origin answered a range with another version or the whole representation")

// fresh starts from nothing with a plain GET. split false keeps one stream.
func (d *download) fresh(ctx context.Context, split bool) (*Result, error) {
	if err := d.openPart(true); err != nil {
		return d.result(), err
	}
	r, err := d.first(ctx, 0, -1, "")
	if err != nil {
		return d.result(), err
	}
	return d.whole(ctx, r, split)
}

// whole adopts a full response (any status below 400 but 206) and
// streams it, splitting the rest into pieces when allowed.
func (d *download) whole(ctx context.Context, r *reply, split bool) (*Result, error) {
	resp := r.resp
	d.adopt(resp)
	// A new transfer from the start: no earlier run's bytes, nor the
	// Repr-Digest its sidecar recorded (another version's, maybe).
	d.resumed, d.savedRepr, d.savedCoding, d.before, d.refStatus, d.total = false, "", "", nil, resp.StatusCode, resp.ContentLength
	d.wholeContent, d.mirrored = "", false
	if raw := strings.Join(resp.Header.Values(verify.ContentDigest), ", "); resp.StatusCode == http.StatusOK && verify.ParseDigestField(verify.ContentDigest, []string{raw}).Usable() {
		// Not one ignored (malformed, over the 16 KiB a field may have):
		// it proves nothing, and recorded it could make the sidecar too
		// large to read back.
		d.wholeContent = raw
	}
	d.wrong = false
	if d.respool != nil {
		if f := d.respool(d.total); f != nil {
			d.f = f // the spool, now where the body may stay (HeldSink.respool)
		}
	}
	d.ranged.Store(false) // this response starts the transfer the result describes
	d.ref = responseFields(resp.Header)
	d.startHash(d.hashAlgorithms(resp, d.ref.all()...), 0, nil)
	d.parallel = 1
	if split && d.splittable(resp) {
		d.parallel = d.parallelFor(d.total)
		d.setupMirrors(ctx, resp)
		if n := d.mirrorSources(); n > 1 {
			d.parallel = n * connsPerSource(d.parallel, n)
		}
	} else if d.retireMirrors(resp, split); split && d.o.Parallel > 1 {
		d.warn(fmt.Sprintf("--parallel %d: fetched as one stream (splitting needs a 200 with a strong ETag, a length, Accept-Ranges: bytes and no digest trailer)", d.o.Parallel))
	}
	mode := modeWhole
	if d.total < 0 {
		d.pieces = []*piece{{start: 0, end: -1}}
	} else {
		d.pieces = planPieces(spans{{0, d.total}}, d.pieceSizeFor(d.parallel*d.mirrorSources()))
		if len(d.pieces) == 0 {
			d.pieces = []*piece{{start: 0, end: 0}}
		}
		if len(d.pieces) > 1 {
			mode = modeHead
		}
	}
	var err error
	if d.mirrorSources() > 1 && len(d.pieces) > 1 {
		err = d.transferMirrors(ctx, r, mode)
	} else {
		err = d.transfer(ctx, r, mode)
	}
	switch {
	case errors.Is(err, errRestart) && split:
		d.warn(fmt.Sprintf("%v (it ignores Range, or the file changed): restarted as one stream", err))
		d.prog.Restart()
		return d.fresh(ctx, false)
	case err != nil && retryable(err) && !d.canResume() && d.restarts < d.req.Retry && ctx.Err() == nil:
		// Without a validator a stream cannot be resumed: start over.
		d.restarts++
		d.retries.Add(1)
		if !sleep(ctx, d.req.backoff(d.restarts-1)) {
			return d.result(), context.Canceled
		}
		d.prog.Restart()
		return d.fresh(ctx, split)
	case errors.Is(err, errRestart):
		// One stream already, and a retry met yet another version.
		return d.result(), protocolErrorf("%v: gave up after restarting", err)
	case err != nil:
		return d.result(), err
	}
	return d.conclude()
}

// adopt takes the identity of the representation from a response.
func (d *download) adopt(resp *http.Response) {
	d.answered(resp)
	d.etag, d.modified = ifRangeETag(resp.Header.Get("ETag")), modifiedOf(resp.Header)
	d.trailer = fields{}
	d.mu.Lock()
	d.late = verify.DigestField{}
	d.mu.Unlock()
}

// answered notes the last answer for the result (its status, header and
// URL) without taking the representation's identity from it: a failed
// request (a 503 before a retry, a resume's 416) names no version, and the
// validator a resume holds (the sidecar's ETag) must stay its If-Range
// and what its pieces are checked against.
func (d *download) answered(resp *http.Response) {
	d.url, d.status, d.header, d.answers = resp.Request.URL.String(), resp.StatusCode, resp.Header, resp.Request
}

// startHash sets up the prefix hasher.
func (d *download) startHash(algs []verify.Algorithm, wm int64, landed spans) {
	if d.hasher != nil {
		d.hasher.Close()
	}
	d.algs, d.hasher = algs, verify.NewHasher(algs)
	d.ph = newPrefixHash(d.f, d.hasher, wm, landed)
}

// hashAlgorithms are the algorithms computed over the file: the ones the
// header's digest fields name, the user's (--expect), sha-256 (it names
// cached versions), and those a trailer may bring (withTrailer). Hashing is
// what a download spends its CPU on: sha-512 nobody sent is not computed.
func (d *download) hashAlgorithms(resp *http.Response, fs ...verify.DigestField) []verify.Algorithm {
	return withTrailer(d.req, resp, d.req.algorithms(fs...))
}

// digestTrailer says whether a response announces a digest field (RFC 9530,
// RFC 3230, Content-MD5, Unencoded-Digest, x-goog-hash, x-amz-checksum-*) in
// the trailer. Go's client moves the Trailer header field into the keys of
// resp.Trailer; both are looked at.
func digestTrailer(resp *http.Response) bool {
	return declaresTrailer(resp, func(k string) bool {
		return k == verify.ReprDigest || k == verify.ContentDigest || k == verify.LegacyDigest ||
			k == "Content-Md5" || k == "Unencoded-Digest" || k == "X-Goog-Hash" || strings.HasPrefix(k, "X-Amz-Checksum-")
	})
}

// declaresTrailer says the response declares in Trailer (or has in its
// trailer) a field whose canonical name is one is.
func declaresTrailer(resp *http.Response, is func(canonical string) bool) bool {
	names := resp.Header.Values("Trailer")
	for k := range resp.Trailer {
		names = append(names, k)
	}
	for _, t := range names {
		for _, f := range strings.Split(t, ",") {
			if is(http.CanonicalHeaderKey(strings.TrimSpace(f))) {
				return true
			}
		}
	}
	return false
}

// splittable says whether the rest of a first 200 may come in pieces.
func (d *download) splittable(resp *http.Response) bool {
	if resp.StatusCode != http.StatusOK || d.etag == "" || d.total <= 0 {
		return false
	}
	if !strings.Contains(strings.ToLower(resp.Header.Get("Accept-Ranges")), "bytes") {
		return false
	}
	// Digests announced as trailers would be lost with the first stream.
	return !digestTrailer(resp)
}

// canResume says whether a broken stream can continue with a range: only
// with a validator for If-Range (ifRange) and a known length.
func (d *download) canResume() bool { return d.ifRange() != "" && d.total >= 0 }

func (d *download) parallelFor(total int64) int {
	if d.o.Parallel > 0 {
		return d.o.Parallel
	}
	return AutoParallel(total)
}

func (d *download) pieceSizeFor(n int) int64 {
	if d.o.PieceSize > 0 && n > 1 {
		return d.o.PieceSize
	}
	return pieceSize(d.total, n)
}

// ifRangeETag returns an ETag usable with If-Range (RFC 9110 §13.1.5): a
// quoted, not weak, entity tag; else "".
func ifRangeETag(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' || strings.ContainsAny(s[1:len(s)-1], "\"\r\n") {
		return ""
	}
	return s
}

// conclude waits for the hash of the whole file and builds the verdict.
func (d *download) conclude() (*Result, error) {
	wm, err := d.ph.finish()
	res := d.result()
	var we *writeError
	if errors.As(err, &we) {
		return res, err
	} else if err != nil {
		return res, &writeError{err: fmt.Errorf("read back %s: %w", d.part, err)}
	}
	if d.total >= 0 && wm != d.total {
		return res, fmt.Errorf("hashed %d bytes of %s, want %d", wm, d.part, d.total)
	}
	res.Bytes = wm
	sums, err := d.lateSums(d.hasher.Sums())
	if err != nil {
		return res, err
	}
	if d.mirrorSources() > 1 {
		sums, err = d.narrow(sums, res.Encoding) // a mismatch: which mirror lied?
		res.Mirrors = d.mirrorReports()
		if err != nil {
			return res, err
		}
	}
	res.setSHA256(sums)
	res.Verdict = d.wholeVerdict(sums, res.Encoding)
	res.Verdict.Warn(d.warnings...)
	warnEncoded(&res.Verdict, res.Encoding)
	return res, verdictError(res, d.req, d.refStatus != http.StatusPartialContent)
}

// wholeVerdict checks the whole file's sums against the first response's
// fields (with the pieces' Repr-Digest when it sent none: lateRef), its
// trailer and the user's digests, and after a resume the Repr-Digest the
// sidecar recorded (savedChecks).
func (d *download) wholeVerdict(sums []verify.Digest, enc string) verify.Verdict {
	v := bodyVerdict(d.lateRef(), d.trailer, sums, statusBasis(d.refStatus, "", sums).coded(enc, false, nil), d.req)
	if d.resumed {
		savedChecks(&v, d.savedRepr, d.ref.repr, sums, d.req.Policy)
	}
	return v
}

// result describes the download so far.
func (d *download) result() *Result {
	r := &Result{URL: d.url, Status: d.status, Header: d.header, ETag: d.header.Get("ETag"),
		Encoding: httpfield.ContentCoding(d.header.Values("Content-Encoding")), Strategy: StrategyFull, Pieces: 1,
		Received: d.received.Load(), Retries: int(d.retries.Load()), RequestURL: d.req.URL, answers: d.answers}
	if r.URL == "" {
		r.URL = d.req.URL
	}
	r.URL = httpfield.Redact(r.URL)
	if len(d.pieces) > 1 && d.ranged.Load() || d.resumed {
		r.Strategy, r.Pieces = StrategyRanges, len(d.pieces)
	}
	r.Mirrors = d.mirrorReports()
	d.mu.Lock()
	r.Verdict.Add(d.checks...)
	r.Verdict.Warn(d.warnings...)
	d.mu.Unlock()
	return r
}

func (d *download) warn(w string) {
	d.mu.Lock()
	d.warnings = append(d.warnings, w)
	d.mu.Unlock()
}

// openPart opens the part file; trunc starts it empty and drops a stale
// sidecar.
func (d *download) openPart(trunc bool) error {
	d.settle()
	if d.spool {
		if err := d.f.Truncate(0); err != nil {
			return &writeError{err: err}
		}
		d.pieces, d.digests, d.checks = nil, map[span]string{}, nil
		return nil
	}
	if d.f != nil {
		d.f.Close()
	}
	var f *os.File
	var err error
	if trunc {
		os.Remove(d.side)
		if d.o.Scratch {
			f, err = CreateScratchPart(d.part)
		} else {
			f, err = CreatePart(d.part, d.path)
		}
	} else {
		f, err = OpenPart(d.part)
	}
	if err != nil {
		return &writeError{err: err}
	}
	d.f, d.pieces, d.digests, d.checks = f, nil, map[span]string{}, nil
	d.mu.Lock()
	d.vouched = nil // another file
	d.mu.Unlock()
	return nil
}

// end commits a verified download, and keeps or deletes a failed one.
func (d *download) end(res *Result, err error) (*Result, error) {
	if d.f == nil {
		return res, err
	}
	if res == nil {
		res = d.result()
	}
	if err == nil {
		if cerr := d.commit(); cerr != nil {
			return res, &writeError{err: cerr}
		}
		return res, nil
	}
	defer d.closeHash()
	d.settle()
	if st, serr := d.f.Stat(); serr == nil && st.Size() > 0 && d.keep(err) {
		if serr := d.saveSidecar(); serr != nil {
			// With no record of which bytes came, -C resumes the part
			// from its end: it may hold no gap.
			os.Remove(d.side) // an earlier run's would speak for bytes cut off
			n := d.contiguous()
			res.Verdict.Warn(fmt.Sprintf("could not save the resume sidecar: %v; the part is kept up to its first gap (%d bytes)", serr, n))
			if terr := d.f.Truncate(n); terr != nil || n == 0 {
				d.f.Close()
				os.Remove(d.part)
				return res, err
			}
		}
		d.f.Close()
		res.Part = d.part
		return res, err
	}
	d.f.Close()
	os.Remove(d.part)
	os.Remove(d.side)
	return res, err
}

// contiguous is how many bytes from the part's start came without a gap,
// once the workers are done.
func (d *download) contiguous() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	done := append(spans{}, d.before...)
	for _, p := range d.pieces {
		done.add(p.start, p.at())
	}
	return done.reach(0)
}

// settle waits for the hasher's writes to the part file (landLent), so
// none lands after the file is truncated, closed or judged.
func (d *download) settle() {
	if d.hasher != nil {
		d.hasher.Flush()
	}
}

// closeHash stops the hasher's goroutines after a failure.
func (d *download) closeHash() {
	if d.hasher != nil {
		d.hasher.Close()
	}
}

// keep says whether a failed download's part stays for -C: after an
// interrupt always (as curl leaves what arrived), after a failure that
// does not prove the bytes wrong only with -C (not after the whole was
// found not to match, d.wrong, whatever error followed).
func (d *download) keep(err error) bool {
	if errors.Is(err, context.Canceled) {
		return true
	}
	bad := d.wrong || errors.Is(err, ErrMismatch) || errors.Is(err, ErrProtocol) || errors.Is(err, ErrUnverified) || errors.Is(err, ErrTooLarge)
	return d.o.Continue && !bad
}

// commit renames the verified part onto the target.
func (d *download) commit() error {
	err := d.f.Sync()
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(d.part, d.path)
	}
	if err != nil {
		os.Remove(d.part)
	}
	os.Remove(d.side)
	return err
}

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
