package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/zsync"
)

// The zsync client (hdig get --zsync): find the control file (the URL
// itself when it ends in .zsync, ControlURL, else the Link the file's HEAD
// carries), find its blocks in the seeds (Seeds, the output file, the
// cached versions of the file's URL), fetch the missing ranges of the
// target with If-Range, check every block's MD4 as it arrives, then the
// whole file's SHA-1 and the origin's Repr-Digest before renaming
// OUT.hdig-part onto OUT. An interrupted run keeps its part for the next
// (zsyncpart.go): every run resumes.

const (
	maxControlFile    = 256 << 20 // bytes of a .zsync accepted
	zsyncBatch        = 16        // ranges asked for per request
	zsyncVerifyBuffer = 128 << 10 // read size of the check of the rebuilt file
	zsyncParallel     = 4         // range requests at once without --parallel
)

// seedWorkers is how many segments of a large seed are scanned at once.
func seedWorkers() int { return min(runtime.NumCPU(), 4) }

// ZsyncOptions are what a zsync download needs besides its request.
type ZsyncOptions struct {
	// Output is the file rebuilt: OUT.hdig-part is written in place, then
	// renamed onto it once checked. It must be a regular file's path.
	Output string
	// ControlURL is the control file's URL when the caller names it
	// (--zsync-url), resolved against the request's URL; "" when the
	// request's URL is the control file (a path ending in .zsync) or the
	// file, whose HEAD's Link names it.
	ControlURL string
	// Seeds are files read for the target's blocks before Output and the
	// cached versions of the file's URL.
	Seeds []string
	// Cache opens the base-version cache (seeds; the new version is
	// stored); nil or a nil result: none.
	Cache func() *cache.Cache
	// Parallel is the number of range requests at once; 0: 4.
	Parallel int
	// Head is the file's HEAD when the caller already sent it.
	Head *Result
	// Progress sees the blocks arrive; nil shows nothing.
	Progress Progress
	// Warnf reports what the run did without (no HEAD: no Repr-Digest);
	// nil prints nothing.
	Warnf func(format string, a ...any)
}

// Zsync downloads req.URL with a zsync control file: the blocks found
// in seeds, the rest as ranges. req carries the headers, policy, limits,
// retries and expected digests, as for Download. Nothing reaches
// o.Output before the rebuilt file passed every check.
func (c *Client) Zsync(ctx context.Context, req *Request, o ZsyncOptions) (*Result, error) {
	if o.Progress == nil {
		o.Progress = NoProgress{}
	}
	if o.Warnf == nil {
		o.Warnf = func(string, ...any) {}
	}
	z := &zsyncRun{o: o, client: c, base: req, head: o.Head}
	res, err := z.run(ctx)
	if errors.Is(err, errChanged) {
		// Another version, once: its control file may be new as well.
		o.Warnf("%v: starting over", err)
		o.Head = nil
		z = &zsyncRun{o: o, client: c, base: req}
		res, err = z.run(ctx)
	}
	return res, err
}

// zsyncRun is one zsync download.
type zsyncRun struct {
	o      ZsyncOptions
	client *Client
	base   *Request // the caller's request: URL, headers, policy, limits

	ctlURL, fileURL string
	head            *Result // HEAD of the file; nil when it failed
	ctl             *zsync.Control
	bound           *seedBound // what seeds may write (zsyncbound.go)
	fileRule        string     // the origin whose rule the file's requests keep (hopRuleKey), when it named the file
	reprs           []string   // the range responses' Repr-Digest values
	fromPart        bool       // an earlier run's part was read as a seed (zsyncpart.go)
}

// localError classifies an error reading the output's own files (the
// part, its seed, FILE as a seed): the output's I/O error (exit 2), unless
// it already says more (too large, a mismatch, an input or output error).
// Unclassified, it would exit 1 as though a digest had not matched.
func localError(err error) error {
	if err == nil || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrMismatch) || errors.Is(err, zsync.ErrMismatch) ||
		errors.Is(err, ErrOutput) || errors.Is(err, ErrInput) || errors.Is(err, ErrProtocol) {
		return err
	}
	return &writeError{err: err}
}

func (z *zsyncRun) run(ctx context.Context) (_ *Result, err error) {
	// The control file, the HEAD and the ranges may be on other origins
	// (a Link, the control file's URL: line): credentials stay with o.URL's.
	ctx = CredentialsFor(ctx, z.base.URL)
	if err := z.discover(ctx); err != nil {
		return nil, err
	}
	if z.fileRule != "" {
		ctx = context.WithValue(ctx, hopRuleKey{}, z.fileRule)
	}
	if err := z.headLength(); err != nil {
		return nil, err
	}
	part, side := Beside(z.o.Output, PartSuffix), Beside(z.o.Output, zsyncSideSuffix)
	f, inPlace, err := z.openPart()
	if err != nil {
		return nil, &writeError{err: err}
	}
	z.bound = &seedBound{out: f, lim: z.base.Limits}
	m := zsync.NewMatcher(z.ctl, z.bound)
	done := false
	defer func() {
		if done {
			return
		}
		// What was fetched stays for the next run, bound to the ETag
		// learned on the way (zsyncpart.go), unless a block proved wrong.
		keep := z.keeps(err, m, inPlace) && m.Flush() == nil && writeZsyncSide(side, z.side()) == nil
		f.Close()
		if !keep {
			os.Remove(part)
			os.Remove(side)
		}
	}()
	if err := z.seedPart(m, f, inPlace); err != nil {
		return nil, localError(err)
	}
	if err := z.seed(m); err != nil {
		return nil, err
	}
	if m.Starved > 0 {
		z.o.Warnf("zsync: %d seed windows not looked at: the control file's block rsums collided with the seed past its hashing budget (their blocks are fetched)", m.Starved)
	}
	os.Remove(Beside(z.o.Output, zsyncSeedSuffix)) // its blocks are in the part now
	z.bound.done()
	res, sha, err := z.rebuild(ctx, m, f)
	if res != nil && errors.Is(err, zsync.ErrMismatch) && m.FromSeed > 0 {
		// Every block was checked, but the whole was not the control
		// file's (its SHA-1): a block of a seed matched short checksums
		// by chance (or by design: MD4 collides at will). The seeds would
		// give it again on every run: each block is fetched from the
		// origin instead. (The control file's file failing another
		// digest would be rebuilt the same from the origin's blocks.)
		z.o.Warnf("zsync: the file rebuilt with %d bytes of seeds failed its check (%v): fetching every block from the origin", m.FromSeed, err)
		first := res
		m = zsync.NewMatcher(z.ctl, z.bound)
		res, sha, err = z.rebuild(ctx, m, f)
		if res != nil {
			res.Pieces, res.Received = res.Pieces+first.Pieces, res.Received+first.Received
		}
	}
	if err != nil {
		return res, err
	}
	if err := f.Close(); err != nil {
		return nil, &writeError{err: err}
	}
	if err := os.Rename(part, z.o.Output); err != nil {
		return nil, &writeError{err: err}
	}
	done = true
	os.Remove(side)
	z.store(res, sha)
	return res, nil
}

// rebuild fetches what the seeds lacked and checks the whole file. A
// Result comes with the error only when the whole was checked (verify).
func (z *zsyncRun) rebuild(ctx context.Context, m *zsync.Matcher, f *os.File) (*Result, []byte, error) {
	pieces, received, err := z.fetchMissing(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	z.headAfter(ctx)
	if err := z.headLength(); err != nil {
		return nil, nil, err
	}
	res := z.result()
	res.Reused = m.FromSeed
	res.Pieces, res.Received = pieces, received
	if err := f.Truncate(z.ctl.Length); err != nil {
		return nil, nil, &writeError{err: err}
	}
	if err := m.Done(); err != nil {
		return nil, nil, mismatch(err)
	}
	sha, err := z.verify(f, res)
	return res, sha, err
}

// fetchMissing fetches what the seeds lacked, with a progress bar as for
// other downloads; the first range response stands for the HEAD not sent.
func (z *zsyncRun) fetchMissing(ctx context.Context, m *zsync.Matcher) (int, int64, error) {
	prog := z.o.Progress
	defer prog.Finish()
	prog.Start(z.ctl.Length, m.FromSeed)
	f := &zsyncFetch{client: z.client, base: z.base, m: m, length: z.ctl.Length, target: z.fileURL, parallel: z.o.Parallel, prog: prog}
	if f.parallel == 0 {
		f.parallel = zsyncParallel
	}
	if z.head != nil {
		f.version = validatorsOf(z.head.Header)
		if t := z.head.Header.Get("ETag"); len(t) > 0 && t[0] == '"' {
			f.etag = t
		}
	}
	err := f.run(ctx)
	z.reprs = f.reprs
	if z.head == nil && f.header != nil {
		z.head = &Result{Header: f.header}
	}
	return f.reqs, f.received, err
}

// result starts the Result from what the HEAD of the file said.
func (z *zsyncRun) result() *Result {
	res := &Result{URL: httpfield.Redact(z.fileURL), RequestURL: z.fileURL, Status: 200, Bytes: z.ctl.Length, Strategy: StrategyZsync}
	if z.head != nil {
		res.Header = z.head.Header
		if t := z.head.Header.Get("ETag"); len(t) > 0 && t[0] == '"' {
			res.ETag = t // strong: If-Range may carry it
		}
	}
	return res
}

// errNoControl: the file advertises no control file.
var errNoControl = errors.New(`the origin advertises no zsync control file (no Link rel="describedby" type="application/x-zsync")`)

// headLength checks the length the HEAD of the file gave (when one was
// sent) against the control file's.
func (z *zsyncRun) headLength() error {
	if z.head == nil || z.head.Status != http.StatusOK {
		return nil
	}
	return lengthAgrees(z.fileURL, z.ctl.Length, z.head.Status, z.head.Header)
}

// lengthAgrees checks the length of the file a 200 (or HEAD) states, the
// Content-Length of an unencoded body, against the control file's Length
// (lengthIs; a 206's parts are checked by rangeSink.part). A response
// that states none (chunked) passes.
func lengthAgrees(target string, want int64, status int, h http.Header) error {
	if status != http.StatusOK {
		return nil
	}
	if httpfield.ContentCoding(h.Values("Content-Encoding")) != "" {
		return nil
	}
	n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return nil
	}
	return lengthIs(target, want, n, "Content-Length")
}

// lengthIs fails when the file's length got, as a response's field
// stated it, is not the control file's Length want: the control file then
// does not describe the file the origin has (it grew or shrank after the
// .zsync was made), and rebuilding the control file's version would hand
// over bytes the origin said it does not have.
func lengthIs(target string, want, got int64, field string) error {
	if got == want {
		return nil
	}
	return mismatch(otherVersion(fmt.Sprintf("zsync: %s has %d bytes (%s), the control file's Length is %d: the control file was made from another version", httpfield.Redact(target), got, field, want)))
}

// otherVersion is a control file that does not describe the origin's file:
// zsync.ErrMismatch for errors.Is, in its own words.
type otherVersion string

func (e otherVersion) Error() string        { return string(e) }
func (e otherVersion) Is(target error) bool { return target == zsync.ErrMismatch }
