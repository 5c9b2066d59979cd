package fetch

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// DefaultIM is the default A-IM value (contract: --im). A delta
// compressed by zstd or br is asked for by listing them after the coding
// (--im 'vcdiff, zstd, br': "IM: vcdiff, zstd", as RFC 3229 §10.7.3's
// "diffe, gzip").
const DefaultIM = "vcdiff, gdiff;q=0.8, diffe;q=0.5, gzip;q=0.3"

// maxBases is how many cached versions are offered in If-None-Match.
const maxBases = 3

// errDeltaFailed marks a 226 or 304 that could not be used: the request is
// then repeated once as a plain full GET (contract: exit status).
var errDeltaFailed = errors.New("delta response unusable")

// Delta configures delta encoding against a base-version cache.
type Delta struct {
	Cache *cache.Cache
	// IM is the A-IM value; "" means DefaultIM.
	IM string
	// Off sends no A-IM or If-None-Match, but still stores versions.
	Off bool
	// Output is the -o path: verified versions are linked to it instead
	// of copied into the cache (not a scratch file's, which the caller
	// renames: NewScratchSink, DownloadOptions.Scratch).
	Output string
	// NoDictionary offers no compression dictionary (RFC 9842); responses
	// offering themselves as one are still stored (dict.go).
	NoDictionary bool
	// Now, if set, is the clock dictionaries' freshness is judged by.
	Now func() time.Time
}

// Get fetches like Do, using and feeding the base-version cache when
// req.Delta is set: it offers cached versions in If-None-Match with A-IM,
// rebuilds a 226 from its base, serves a 304 from the cache, and stores
// every verified version. A range request never uses the cache: a 304
// must not answer it with the whole representation. A request with the
// caller's own conditions offers nothing either: its 304 is the caller's.
func (c *Client) Get(ctx context.Context, req *Request, sink Sink) (*Result, error) {
	d := req.Delta
	if d == nil || d.Cache == nil || req.method() != http.MethodGet || req.Body != nil || req.Partial() {
		return c.Do(ctx, req, sink)
	}
	r := *req
	r.Header = req.Header.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	var offered []cache.Entry
	if !d.Off && !req.Conditional() {
		offered = c.bases(d.Cache, req.URL)
	}
	if !d.NoDictionary && !req.Conditional() {
		if o := bestDict(d.Cache, req.URL, d.now()); o != nil && offerDict(r.Header, o, req.Compressed) {
			r.dict, r.plain = o, req
		}
	}
	if len(offered) > 0 {
		im := d.IM
		if im == "" {
			im = DefaultIM
		}
		tags := make([]string, len(offered))
		for i, e := range offered {
			tags[i] = e.ETag
		}
		r.Header.Set("A-IM", im)
		r.Header.Set("If-None-Match", strings.Join(tags, ", "))
		r.intercept = (&deltaReceiver{c: c, req: &r, offered: offered, aim: patch.Acceptable(patch.ParseAIM([]string{im}))}).receive
		r.plain, r.bases = req, req.URL
	}
	held, _ := sink.(*HeldSink)
	if held != nil && d.Output == "" {
		spoolIn(held, d.Cache)
		r.BeforeCommit = func(res *Result) error {
			c.storeHeld(d.Cache, res, held)
			storeDictHeld(d.Cache, res, held)
			return nil
		}
	}
	res, err := c.Do(ctx, &r, sink)
	if err == nil && d.Output != "" {
		// A scratch file (-J's) is renamed by the caller at once: linked,
		// the cache would keep an entry for a file gone.
		if fs, ok := sink.(*FileSink); !ok || !fs.scratch {
			storeLinked(d.Cache, res, d.Output)
		}
		storeDictFile(d.Cache, res, d.Output)
	}
	return res, err
}

// offers says a GET of url would offer a cached base (A-IM) or a
// dictionary (Available-Dictionary).
func (c *Client) offers(d *Delta, url string) bool {
	if !d.Off && len(c.bases(d.Cache, url)) > 0 {
		return true
	}
	return !d.NoDictionary && len(matchingDicts(d.Cache, url, d.now())) > 0
}

// now is the clock of the dictionaries' freshness.
func (d *Delta) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// bases lists the cached identity versions of url to offer, newest first.
func (c *Client) bases(store *cache.Cache, url string) []cache.Entry {
	vs, err := store.Versions(url)
	if err != nil {
		return nil
	}
	var out []cache.Entry
	for _, e := range vs {
		if e.ContentEncoding == "" && strongETag(e.ETag) && len(out) < maxBases {
			out = append(out, e)
		}
	}
	return out
}

// storable says whether a verified result may become a base version of
// the URL asked for: not one another origin sent after a redirect, whose
// entity tag that URL's origin could answer 304 (an http hop a network
// attacker answered, kept under the https URL).
func storable(res *Result) bool {
	if res == nil || res.SHA256 == nil || res.Decoded || !strongETag(res.ETag) || !SameOrigin(res.URL, res.RequestURL) {
		return false
	}
	switch res.Status {
	case http.StatusOK, http.StatusIMUsed:
	default:
		return false
	}
	return res.Encoding == "" && cache.Storable(res.Header)
}

func entryFor(res *Result) cache.Entry {
	return cache.Entry{URL: res.RequestURL, ETag: res.ETag, ReprDigest: res.Header.Get(verify.ReprDigest),
		ContentType: res.Header.Get("Content-Type")}
}

func (c *Client) storeHeld(store *cache.Cache, res *Result, held *HeldSink) {
	if !storable(res) {
		return
	}
	var err error
	if f, size := held.spooled(); f != nil {
		// The spool's bytes are those hashed as they arrived: copied,
		// not hashed again (1 GiB: a second or more of CPU).
		e := entryFor(res)
		e.SHA256 = hex.EncodeToString(res.SHA256)
		_, err = store.PutVerified(e, f, size)
	} else {
		var r io.Reader
		if r, err = held.Reader(); err == nil {
			_, err = store.Put(entryFor(res), r)
		}
	}
	if err != nil && !errors.Is(err, cache.ErrTooLarge) {
		res.Verdict.Warn(fmt.Sprintf("not cached: %v", err))
	}
}

func storeLinked(store *cache.Cache, res *Result, path string) {
	if !storable(res) {
		return
	}
	if _, err := store.PutFile(entryFor(res), path, hex.EncodeToString(res.SHA256)); err != nil {
		res.Verdict.Warn(fmt.Sprintf("not cached: %v", err))
	}
}

// strongETag reports a strong entity tag (RFC 9110 §8.8.3).
func strongETag(t string) bool { return len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' }

// deltaReceiver handles the 226 and 304 answers to a delta request.
type deltaReceiver struct {
	c       *Client
	req     *Request
	offered []cache.Entry
	aim     []string
}

// receive handles 226 and 304; it returns ok false for any other status.
func (d *deltaReceiver) receive(ctx context.Context, resp *http.Response, sink Sink, res *Result) (bool, error) {
	switch resp.StatusCode {
	case http.StatusNotModified:
		return true, d.notModified(resp, sink, res)
	case http.StatusIMUsed:
		return true, d.imUsed(ctx, resp, sink, res)
	}
	return false, nil
}

// base finds the offered version a response refers to: Delta-Base, else
// the ETag (304), else the only one offered (RFC 3229 §10.5.1).
func (d *deltaReceiver) base(tag string) (cache.Entry, error) {
	for _, e := range d.offered {
		if tag != "" && e.ETag == tag {
			return e, nil
		}
	}
	if tag == "" && len(d.offered) == 1 {
		return d.offered[0], nil
	}
	if tag == "" {
		return cache.Entry{}, fmt.Errorf("%w: no Delta-Base, and %d versions were offered (RFC 3229 §10.5.1)", errDeltaFailed, len(d.offered))
	}
	return cache.Entry{}, fmt.Errorf("%w: base %s is not a version we hold", errDeltaFailed, tag)
}

// notModified outputs the cached version named by a 304, checked against
// the 304's Repr-Digest; one over --max-filesize is refused.
func (d *deltaReceiver) notModified(resp *http.Response, sink Sink, res *Result) error {
	e, err := d.base(resp.Header.Get("ETag"))
	if err != nil {
		return err
	}
	// The cached version is the body: --max-filesize holds for it as for
	// a 200's Content-Length, before a byte of it is written.
	if err := d.req.Limits.checkLength(e.Size); err != nil {
		return err
	}
	src, err := d.cached(e, sink)
	if err != nil {
		return fmt.Errorf("%w: 304 names %s, but %v", errDeltaFailed, e.ETag, err)
	}
	defer src.Close()
	if fs, ok := sink.(*FileSink); ok && e.Linked() && d.inPlace(resp, e, fs, res) {
		return nil
	}
	hasher := verify.NewHasher(d.req.algorithms(reprFields(resp.Header).all()...))
	defer hasher.Close()
	n, err := copyBehind(sinkWriter{sink}, src.Reader(), hasher)
	var we *writeError
	if errors.As(err, &we) {
		return err
	} else if err != nil {
		return fmt.Errorf("%w: read cached %s: %v", errDeltaFailed, e.ETag, err)
	}
	sums := hasher.Sums()
	if err := src.Check(sha256Of(sums), n); err != nil {
		return fmt.Errorf("%w: 304 names %s, but %v", errDeltaFailed, e.ETag, err)
	}
	res.Strategy, res.ETag, res.Bytes, res.Received = StrategyNotModified, e.ETag, n, 0
	res.Verdict = reprVerdict(resp.Header, nil, sums, d.req)
	emptyContentChecks(&res.Verdict, resp.Header, d.req.Policy) // a 304 carries no content
	res.setSHA256(sums)
	// full is false: the 304's Content-Digest is of its empty content
	// (B.2), never proof of the cached bytes, signed or not.
	if err := verdictError(res, d.req, false); err != nil {
		return fmt.Errorf("%w: cached copy of %s: %v", errDeltaFailed, e.ETag, err)
	}
	return nil
}

// cachedCopy is a cached version to copy into a sink and then Check.
type cachedCopy interface {
	Reader() io.Reader
	Check(sum []byte, n int64) error
	Close() error
}

// cached opens version e to be copied into sink. A sink that holds its
// bytes back until the verdict (a holdingSink) gets them unchecked, read
// and hashed once: the copy's sha-256 checks them (cache.Unchecked). Any
// other (-N's stream, a zsync control file parsed as it comes) gets them
// checked first (cache.Open), for no damaged byte may reach it: it cannot
// take them back. So does the output file the cache links to -o, which
// inPlace may settle without a copy on the strength of that check.
func (d *deltaReceiver) cached(e cache.Entry, sink Sink) (cachedCopy, error) {
	_, holds := sink.(holdingSink)
	if _, out := sink.(*FileSink); holds && !(out && e.Linked()) {
		u, err := d.req.Delta.Cache.OpenUnchecked(e)
		if err != nil {
			return nil, err
		}
		return u, nil
	}
	b, err := d.req.Delta.Cache.Open(e)
	if err != nil {
		return nil, err
	}
	return checkedCopy{b}, nil
}

// checkedCopy is a version cache.Open has checked already.
type checkedCopy struct{ b *cache.Base }

func (c checkedCopy) Reader() io.Reader         { return io.NewSectionReader(c.b, 0, c.b.Size()) }
func (c checkedCopy) Check([]byte, int64) error { return nil }
func (c checkedCopy) Close() error              { return c.b.Close() }

// inPlace settles a 304 for the very file the cache links to -o without
// copying it onto itself: Cache.Open has just checked it against its
// sha-256, so a Repr-Digest sha-256 member is checked against that sum.
// It reports false, leaving the copy to the caller, when the 304 has no
// sha-256 Repr-Digest, names any other algorithm, or does not match.
func (d *deltaReceiver) inPlace(resp *http.Response, e cache.Entry, fs *FileSink, res *Result) bool {
	if !e.Linked() || len(d.req.Expected) > 0 {
		return false // the user's digests are computed over the copy
	}
	out, err := filepath.Abs(fs.Path)
	if err != nil || out != e.Path {
		return false
	}
	sum, err := hex.DecodeString(e.SHA256)
	if err != nil {
		return false
	}
	repr := responseFields(resp.Header).repr
	if _, ok := repr.Get("sha-256"); !ok || !d.req.Policy.Accepts("sha-256") {
		return false
	}
	// Only sha-256 is known here: any other algorithm the copy would hash
	// (a sha-512 member, the obsolete Digest's md5, a foreign field's)
	// must be computed over the bytes, else it would pass as not computed.
	for _, a := range d.req.algorithms(reprFields(resp.Header).all()...) {
		if a.Key != "sha-256" {
			return false
		}
	}
	v := reprVerdict(resp.Header, nil, []verify.Digest{{Algorithm: "sha-256", Value: sum}}, d.req)
	emptyContentChecks(&v, resp.Header, d.req.Policy)
	if v.Outcome() != verify.Verified {
		return false
	}
	if d.req.Trust != nil {
		// The copy path checks the signatures again and reports the failure.
		probe := &Result{Status: res.Status, Header: res.Header, URL: res.URL, RequestURL: res.RequestURL, Verdict: v, answers: resp.Request}
		if d.req.Trust.authenticate(probe, false) != nil { // a 304's Content-Digest is of empty content
			return false
		}
		res.Signatures, res.Authentic, res.SignedBy = probe.Signatures, probe.Authentic, probe.SignedBy
	}
	fs.Unchanged()
	res.Strategy, res.ETag, res.Bytes, res.Received = StrategyNotModified, e.ETag, e.Size, 0
	res.Verdict, res.SHA256 = v, sum
	return true
}

// imUsed rebuilds the current instance from a 226: Content-Digest is
// checked over the delta bytes, Repr-Digest over the rebuilt instance.
func (d *deltaReceiver) imUsed(ctx context.Context, resp *http.Response, sink Sink, res *Result) error {
	ims, err := patch.ParseIM(resp.Header.Values("IM"))
	if err != nil {
		return fmt.Errorf("%w: %v", errDeltaFailed, err)
	}
	if err := d.checkIMs(ims); err != nil {
		return err
	}
	if ce := httpfield.ContentCodings(resp.Header.Values("Content-Encoding")); len(ce) > 0 {
		// RFC 3229 §10.7: the delta is between instances so coded; the
		// versions cached are identities. A compressed delta is an IM.
		return fmt.Errorf("%w: 226 with Content-Encoding %s: its delta is between %s-coded instances (RFC 3229 §10.7.1), and the cached bases are not coded",
			errDeltaFailed, strings.Join(ce, ", "), strings.Join(ce, ", "))
	}
	if res.ETag == "" {
		return fmt.Errorf("%w: 226 without ETag (RFC 3229 §10.4.1)", errDeltaFailed)
	}
	delta := resp.Header.Get("Delta-Base")
	e, err := d.base(delta)
	if err != nil {
		return err
	}
	b, err := d.req.Delta.Cache.Open(e)
	if err != nil {
		return fmt.Errorf("%w: base %s: %v", errDeltaFailed, e.ETag, err)
	}
	defer b.Close()
	hdr := responseFields(resp.Header)
	content := verify.NewHasher(withTrailer(d.req, resp, d.req.algorithms(hdr.content, hdr.md5)))
	defer content.Close()
	repr := verify.NewHasher(withTrailer(d.req, resp, d.req.algorithms(reprFields(resp.Header).all()...)))
	defer repr.Close()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := newIdleReader(resp.Body, d.c.timeout, cancel)
	defer idle.stop()
	counted := &countingReader{r: idle}
	capped := &capReader{r: counted, lim: d.req.Limits}
	body := io.TeeReader(capped, content)
	// Rebuilt bytes are bounded by what came in: the ratio times the
	// delta's bytes, beside the base once (a few delta bytes may copy it
	// again and again: checkGiven).
	out := &boundedWriter{w: io.MultiWriter(sinkWriter{sink}, repr), lim: d.req.Limits, expands: true,
		in: counted.count, given: b.Size()}
	err = patch.Undo(ims, b, b.Size(), body, out)
	if err == nil {
		_, err = io.Copy(io.Discard, body)
	}
	res.Strategy, res.IM, res.DeltaBase = StrategyDelta, ims, e.ETag
	res.Bytes, res.Received = out.n, counted.count()
	var le *limitError
	if errors.As(out.err, &le) && le.ratio {
		return fmt.Errorf("%w: applying %s to %s: %v", errDeltaFailed, strings.Join(ims, ", "), e.ETag, le)
	} else if out.err != nil {
		return out.err // over --max-filesize: the whole would be too
	} else if capped.err != nil {
		return capped.err
	}
	if err != nil {
		err = d.c.bodyError(ctx, err, counted.count(), resp.ContentLength)
		if errors.Is(err, ErrProtocol) {
			return fmt.Errorf("%w: applying %s to %s: %v", errDeltaFailed, strings.Join(ims, ", "), e.ETag, err)
		}
		return err
	}
	res.Trailer = resp.Trailer
	tr := responseFields(resp.Trailer)
	var v verify.Verdict
	for _, f := range []verify.DigestField{hdr.content, tr.content, hdr.md5, tr.md5} {
		v.Warn(f.Warnings()...)
		v.Add(verify.Compare(f, content.Sums(), d.req.Policy)...)
	}
	agree(&v, hdr.content, tr.content)
	rv := reprVerdict(resp.Header, resp.Trailer, repr.Sums(), d.req)
	v.Add(rv.Checks...)
	v.Warn(rv.Warnings...)
	res.Verdict = v
	res.setSHA256(repr.Sums())
	// A rebuilt instance nothing proves (no Repr-Digest: the delta's
	// Content-Digest covers the delta only) is, under --require-digest, a
	// delta that could not be used, as a 304's unproven cached copy is
	// (notModified): the whole may be proven by its own Content-Digest.
	if err := verdictError(res, d.req, false); errors.Is(err, ErrMismatch) || errors.Is(err, ErrUnverified) {
		return fmt.Errorf("%w: %v", errDeltaFailed, err)
	} else if err != nil {
		return err
	}
	return nil
}

// checkIMs accepts an IM list only if we asked for each and can undo it
// (patch.CheckIM: one delta coding, then one compression), before the
// body is read.
func (d *deltaReceiver) checkIMs(ims []string) error {
	if len(ims) == 0 {
		return fmt.Errorf("%w: 226 without IM (RFC 3229 §10.5.2)", errDeltaFailed)
	}
	for _, im := range ims {
		if !slices.Contains(d.aim, im) {
			return fmt.Errorf("%w: IM %s was not in our A-IM (RFC 3229 §10.5.3)", errDeltaFailed, im)
		}
	}
	if err := patch.CheckIM(ims); err != nil {
		return fmt.Errorf("%w: IM %s: %v", errDeltaFailed, strings.Join(ims, ", "), err)
	}
	return nil
}

// reprVerdict checks Repr-Digest (or the obsolete Digest) of header and
// trailer, the foreign fields and the user's digests against digests of
// the rebuilt representation.
func reprVerdict(h, t http.Header, sums []verify.Digest, req *Request) verify.Verdict {
	var v verify.Verdict
	p := req.Policy
	hdr, tr := reprFields(h), reprFields(t)
	for i, f := range []verify.DigestField{hdr.repr, tr.repr} {
		where := ""
		if i == 1 {
			where = " (trailer)" // no signature over the header's field counts for it
		}
		v.Warn(suffix(f.Warnings(), where)...)
		v.Add(label(verify.Compare(f, sums, p), where)...)
	}
	// The obsolete Digest, beside Repr-Digest or not, and in the trailer
	// too: a member that does not match fails as Repr-Digest's would.
	for i, f := range []verify.DigestField{hdr.legacy, tr.legacy} {
		where := ""
		if i == 1 {
			where = " (trailer)"
		}
		v.Warn(suffix(f.Warnings(), where)...)
		v.Add(label(verify.Compare(f, sums, p), where)...)
	}
	outsideChecks(&v, hdr, tr, reprBasis{sums: sums, content: true, coding: codingOf(h)}, req)
	agree(&v, hdr.repr, tr.repr)
	if !hdr.repr.Present && !tr.repr.Present && !hdr.legacy.Present && !tr.legacy.Present {
		v.Warn("the origin sent no Repr-Digest: nothing it sent proves the whole representation")
	}
	return v
}
