package fetch

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/verify"
)

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

// checkedCopy is a version cache.Open has checked already, read again
// for the copy: Check holds the copy's sha-256 to the version's too, so
// bytes changed between the two reads fail the run (they may be out).
type checkedCopy struct{ b *cache.Base }

func (c checkedCopy) Reader() io.Reader               { return io.NewSectionReader(c.b, 0, c.b.Size()) }
func (c checkedCopy) Check(sum []byte, n int64) error { return c.b.Check(sum, n) }
func (c checkedCopy) Close() error                    { return c.b.Close() }

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
	if !rebuiltVerified(v) { // the verdict word's rule: the 304's Content-Digest is of empty content
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
