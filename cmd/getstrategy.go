package cmd

import (
	"context"
	"net/http"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/zsync"
)

// The strategy chooser (--strategy auto), with a cached base version of
// the URL: the GET offering a 226 delta (A-IM) unless the origin answered
// such a GET with a 200 before and never with a 226 (remembered per
// origin in the cache directory: cache.NoteOrigin); from such an origin,
// the zsync control file its HEAD advertises; else a plain GET. Without a
// cached base: a plain GET.

// applyStrategy turns --strategy into the flags it implies; zsync says the
// zsync client is to run.
func (o *getOptions) applyStrategy(ctx context.Context) (zsyncRun bool, err error) {
	switch o.Strategy {
	case "zsync":
		o.Zsync = true
		return true, nil
	case "full":
		o.NoDelta, o.NoDictionary = true, true
		return false, nil
	case "delta":
		o.NoDictionary = true
		return false, nil
	case "dictionary":
		o.NoDelta = true
		return false, nil
	case "auto", "":
		return o.preferZsync(ctx), nil
	}
	return false, usageErrorf("--strategy %q: want auto, delta, dictionary, zsync or full", o.Strategy)
}

// zsyncKeepsFlags reports whether the zsync path does all the flags ask:
// it checks --expect, --checksum-file and --require-digest, but checks no
// --trust-key signature, and writes none of the output zsyncDrops names.
// auto chooses it only then, so a flag never stops working, nor the exit
// status changes, with what the cache holds or the origin advertises.
func (o *getOptions) zsyncKeepsFlags() bool {
	return len(o.Sign.TrustKeys) == 0 && o.zsyncDrops() == ""
}

// zsyncDrops names the first flag given that the zsync path does not
// honour ("" when none): it writes no -w, -D, -i, -R or -J output, nor
// into --output-dir, nor bounds the run by -m. An explicit --zsync refuses
// them (checkZsyncFlags) rather than drop them in silence.
func (o *getOptions) zsyncDrops() string {
	x := o.Out
	for _, f := range []struct {
		set  bool
		name string
	}{
		{x.WriteOut != "", "-w"}, {x.Include, "-i"}, {x.DumpHeader != "", "-D"}, {x.OutputDir != "", "--output-dir"},
		{x.RemoteTime, "-R"}, {x.RemoteHeaderName, "-J"}, {x.FailWithBody, "--fail-with-body"}, {o.Conn.MaxTime != 0, "-m"},
	} {
		if f.set {
			return f.name
		}
	}
	return ""
}

// preferZsync decides auto: zsync when a cached base exists, the origin
// has shown it does not send 226, and the file's HEAD names a control file.
// It notes whether the plain GET will offer a delta (o.offersDelta).
func (o *getOptions) preferZsync(ctx context.Context) bool {
	if o.NoCache || o.Head || o.Output == "" || o.special || o.ranged() || o.Continue || o.Method != "" ||
		o.UploadFile != "" || len(o.Data) > 0 || o.DataBinary != "" || o.RemoteName || !o.zsyncKeepsFlags() {
		return false
	}
	dir := o.cacheDir()
	if dir == "" {
		return false
	}
	store, err := cache.Open(dir)
	if err != nil {
		return false
	}
	versions, _ := store.Versions(o.URL)
	dict := !o.NoDictionary && fetch.HasDictionary(store, o.URL, time.Now())
	store.Close()
	if len(versions) == 0 || dict {
		return false // nothing to rebuild from; or a dcb/dcz body beats ranges
	}
	o.offersDelta = !o.NoDelta && o.Delta
	if f := cache.Origin(dir, o.URL); f.Delta || !f.NoDelta {
		return false
	}
	req, err := o.request()
	if err != nil {
		return false // the plain path reports it
	}
	client, err := o.client(req)
	if err != nil {
		return false
	}
	head, err := client.Do(ctx, &fetch.Request{URL: o.URL, Method: http.MethodHead, Header: req.Header, Policy: req.Policy, WantRepr: req.WantRepr}, fetch.DiscardSink{})
	if err != nil || zsync.ControlLink(head.Header.Values("Link")) == "" {
		return false
	}
	o.Zsync, o.zsyncHead = true, head
	return true
}

func (o *getOptions) cacheDir() string {
	if o.CacheDir != "" {
		return o.CacheDir
	}
	d, _ := cache.DefaultDir()
	return d
}

// remember records what worked with the URL's origin in the cache
// directory (cache.NoteOrigin).
func (o *getOptions) remember(res *fetch.Result) {
	refused := o.offersDelta && res != nil && res.Status == http.StatusOK && res.Strategy == fetch.StrategyFull
	if o.NoCache || res == nil || (res.Strategy != fetch.StrategyDelta && res.Strategy != fetch.StrategyZsync && !refused) {
		return
	}
	dir := o.cacheDir()
	if dir == "" {
		return
	}
	cache.NoteOrigin(dir, res.RequestURL, func(f *cache.OriginFacts) {
		switch {
		case res.Strategy == fetch.StrategyDelta:
			f.Delta, f.NoDelta = true, false
		case res.Strategy == fetch.StrategyZsync:
			f.Zsync = true
		case !f.Delta:
			f.NoDelta = true
		}
	})
}
