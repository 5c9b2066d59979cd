package fetch

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/patch"
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
// caller's own conditions offers nothing either: its 304 is the caller's;
// nor one that omits the field offering the versions (Request.Omit:
// If-None-Match).
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
	if !d.Off && !req.Conditional() && !req.Omits("If-None-Match") {
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
