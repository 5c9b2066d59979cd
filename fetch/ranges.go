package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
		os.Remove(Beside(path, SidecarSuffix)) // as a fresh download drops it: the part is started over
		sink, err := newSink(path, o.Scratch)
		if err != nil {
			return nil, &writeError{err: err}
		}
		return c.Get(ctx, req, sink)
	}
	d := &download{c: c, req: req, path: path, part: Beside(path, PartSuffix), side: Beside(path, SidecarSuffix), o: o, prog: o.Progress}
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
	late         verify.DigestField   // the pieces' Repr-Digest when the first response had none (guarded by mu; laterepr.go)
	lateRaw      string               // late's field value as sent: a sidecar records a malformed one as such (guarded by mu)
	lateMore     []verify.DigestField // the pieces' members of fields of the whole no earlier answer carried (guarded by mu)
	restarts     int
	wrong        bool       // the whole did not match (narrow): the part holds bytes known wrong
	mirrored     bool       // the part may hold bytes of mirrors an earlier run asked (sidecar.Mirrored)
	unnamed      bool       // the part's bytes, which nothing named the version of, were spliced on the promise of a proof (resumeLength)
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
	d.wholeContent, d.mirrored, d.unnamed = "", false, false
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
