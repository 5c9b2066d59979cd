package cmd

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/verify"
)

// request validates the flags and builds the fetch request.
func (o *getOptions) request() (*fetch.Request, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageErrorf("bad URL %q: want http:// or https:// with a host", httpfield.Redact(o.URL))
	}
	if o.JSON && o.Output == "" && !o.Head {
		return nil, usageErrorf("--json prints the verdict on stdout, so it needs -o FILE or -I")
	}
	if o.NoBuffer && o.Output != "" {
		return nil, usageErrorf("-N applies to stdout only; -o already streams to FILE.hdig-part")
	}
	if err := o.numbers(); err != nil {
		return nil, err
	}
	ranges, err := o.rangeFlags()
	if err != nil {
		return nil, err
	}
	policy, err := parseAccept(o.Accept)
	if err != nil {
		return nil, err
	}
	req := &fetch.Request{URL: o.URL, Header: http.Header{}, Compressed: o.Compressed, Policy: policy,
		RequireDigest: o.RequireDigest, Retry: o.Retry, Method: o.Method, Ranges: ranges}
	if req.Limits, err = o.Limits.limits(); err != nil {
		return nil, err
	}
	if req.Trust, err = o.Sign.trust(); err != nil {
		return nil, err
	}
	if !o.NoWant {
		if req.WantRepr, err = verify.ParseWant(o.WantRepr); err != nil {
			return nil, usageErrorf("--want-repr: %v", err)
		}
		if req.WantContent, err = verify.ParseWant(o.WantContent); err != nil {
			return nil, usageErrorf("--want-content: %v", err)
		}
	}
	if req.Header, req.Omit, err = requestHeaders(o.Headers); err != nil {
		return nil, err
	}
	if _, empty := req.Header["Range"]; o.Range != "" && (slices.Contains(req.Omit, "Range") || empty && req.Header.Get("Range") == "") {
		return nil, usageErrorf("-r with -H 'Range:' or 'Range;', which removes or empties the Range field -r sends")
	}
	if rs, ok := headerRanges(req.Header.Get("Range")); ok {
		req.Ranges = rs // -H 'Range: bytes=…' is sent as given, and its answer read as -r's
	}
	if err := o.body(req); err != nil {
		return nil, err
	}
	expectContinue(req)
	if o.Head {
		if req.Body != nil {
			return nil, usageErrorf("-I cannot send a request body")
		}
		req.Method = http.MethodHead
	}
	if err := o.Expect.conflicts(o, req); err != nil {
		return nil, err
	}
	return req, nil
}

// sink chooses where the body goes.
func (o *getOptions) sink(ios *IOStreams) (fetch.Sink, error) {
	switch {
	case o.Head && o.Output == "":
		return fetch.DiscardSink{}, nil
	case o.special:
		return o.deviceSink(), nil
	case o.Output != "" && o.Out.RemoteHeaderName:
		return fetch.NewScratchSink(o.Output) // -J's hidden name (resolveOutput)
	case o.Output != "":
		return fetch.NewFileSink(o.Output)
	case o.NoBuffer:
		return &fetch.StreamSink{Out: ios.Out}, nil
	}
	return &fetch.HeldSink{Out: ios.Out}, nil
}

// delta opens the base-version cache unless --no-cache. A cache that cannot
// be opened is a warning, not a failure: the fetch goes on without it.
func (o *getOptions) delta(ios *IOStreams) (*fetch.Delta, error) {
	if o.NoCache || o.Head {
		return nil, nil
	}
	if _, err := parseSize(o.CacheMax); err != nil {
		return nil, usageErrorf("--cache-max: %v", err)
	}
	store, err := o.openCache(ios)
	if err != nil {
		linef(ios.ErrOut, "warning: no base-version cache: %v", err)
		return nil, nil
	}
	if len(patch.Acceptable(patch.ParseAIM([]string{o.IM}))) == 0 {
		store.Close()
		return nil, usageErrorf("--im %q: no acceptable instance manipulation (want e.g. vcdiff, gdiff;q=0.5)", o.IM)
	}
	linked := o.Output
	if o.special {
		linked = "" // nothing to link: a device's bytes are gone once written
	}
	return &fetch.Delta{Cache: store, IM: o.IM, Off: o.NoDelta || !o.Delta, Output: linked, NoDictionary: o.NoDictionary}, nil
}

// openCache opens the base-version cache (--cache-dir, else the default
// directory), its warnings on stderr and its size bound --cache-max.
func (o *getOptions) openCache(ios *IOStreams) (*cache.Cache, error) {
	dir := o.CacheDir
	if dir == "" {
		d, err := cache.DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	capBytes, err := parseSize(o.CacheMax)
	if err != nil {
		return nil, fmt.Errorf("--cache-max: %w", err)
	}
	store, err := cache.Open(dir)
	if err != nil {
		return nil, err
	}
	store.MaxBytes = capBytes
	store.Warnf = func(f string, a ...any) { linef(ios.ErrOut, "warning: cache: "+f, a...) }
	return store, nil
}
