package check

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// Run audits the URLs, at most Options.Parallel at a time, and returns one
// report per URL in the order given.
func Run(ctx context.Context, urls []string, o Options) []Report {
	o = o.withDefaults()
	reports := make([]Report, len(urls))
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			reports[i] = URL(ctx, u, o)
		}()
	}
	wg.Wait()
	return reports
}

// URL audits one URL. Its requests are sent one after the other, so the
// load on the origin stays small and the report is deterministic.
func URL(ctx context.Context, url string, o Options) Report {
	a := &audit{url: url, home: url, opts: o.withDefaults(), s: newSheet()}
	if a.opts.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, a.opts.MaxTime, MaxTimeError{a.opts.MaxTime})
		defer cancel()
		a.s.cut = func() error {
			if err, ok := context.Cause(ctx).(MaxTimeError); ok {
				return err
			}
			return nil
		}
	}
	unreachable := a.run(ctx)
	if a.s.cut != nil { // whether the audit was cut is decided once, as it ends
		cut := a.s.cut()
		a.s.cut = func() error { return cut }
	}
	return Report{URL: httpfield.Redact(url), Checks: a.s.ordered(), Unreachable: unreachable}
}

// MaxTimeError is the cause of an audit cut short by Options.MaxTime.
type MaxTimeError struct{ Limit time.Duration }

func (e MaxTimeError) Error() string {
	return fmt.Sprintf("--max-time %v ran out", e.Limit)
}

// audit is the state of the audit of one URL.
type audit struct {
	url  string
	home string // the URL audited: -H credentials go to its origin only
	opts Options
	s    *sheet

	full *response // GET, Accept-Encoding: identity, Want-*-Digest
	repr verify.DigestField
	// again is a second full GET, made when a response's ETag is not the
	// GET's (versionRef); nil when not made or incomplete.
	again     *response
	againDone bool
}

// run performs the checks; it reports whether the origin was unreachable.
func (a *audit) run(ctx context.Context) bool {
	if unreachable, ok := a.fetchFull(ctx); !ok {
		return unreachable
	}
	a.checkRepr()
	a.checkContent()
	a.checkForeign()
	a.checkSignatures()
	head := a.checkHead(ctx)
	part := a.checkRange(ctx)
	a.checkMultipart(ctx, part)
	enc := a.checkEncoding(ctx)
	probe := a.checkWant(ctx)
	a.checkDelta(ctx)
	a.checkZsync(ctx)
	a.checkCORS(ctx)
	dict := a.checkDictionary(ctx)
	a.checkETags(ctx, checked{r: a.full}, checked{r: head, own: true}, checked{r: part, own: true}, checked{r: enc}, checked{r: probe}, checked{r: dict}, checked{r: a.again})
	return false
}

// wantHeader is the request header asking for digests with prefs.
func wantHeader(prefs []verify.Pref) http.Header {
	v := verify.FormatWant(prefs)
	return http.Header{
		verify.WantReprDigest:    {v},
		verify.WantContentDigest: {v},
	}
}

// fetchFull sends the GET every other check builds on and decides
// http.status. ok is false when the audit cannot go on.
func (a *audit) fetchFull(ctx context.Context) (unreachable, ok bool) {
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	h.Set(verify.AmzChecksumMode, "ENABLED") // S3 sends x-amz-checksum-* only when asked
	r, err := a.do(ctx, request{label: "GET", method: http.MethodGet, header: h, pick: pickRange, reference: true})
	if err != nil {
		a.s.fail("http.status", fmt.Sprintf("GET failed: %v; want a 200 response", err))
		a.s.skipRest("not checked: the origin could not be reached")
		return true, false
	}
	a.full = r
	switch {
	case r.status != http.StatusOK:
		msg := fmt.Sprintf("GET returned %d %s, want 200 OK", r.status, http.StatusText(r.status))
		if loc := r.header.Get("Location"); loc != "" && r.status/100 == 3 {
			msg += fmt.Sprintf(" (Location: %s; check that URL, or use -L)", loc)
		}
		a.s.fail("http.status", msg)
	case r.err != nil:
		a.s.fail("http.status", fmt.Sprintf("GET 200 body broke off after %s: %v", bytesOf(r.size), r.err))
	default:
		msg := "GET returned 200 OK, " + bytesOf(r.size)
		if r.capped {
			msg = fmt.Sprintf("GET returned 200 OK, more than --max-body (%s): body checks skipped", bytesOf(a.opts.MaxBody))
		}
		a.s.pass("http.status", msg)
		a.repr = r.digests(verify.ReprDigest)
		return false, true
	}
	a.s.skipRest("not checked: GET did not return a complete 200 response")
	return false, false
}

// pickRange chooses the window of the full body kept for range.partial from
// its Content-Length (-1 when unknown): up to 64 KiB from a third in.
func pickRange(n int64) (lo, hi int64) {
	if n < 0 {
		return 0, rangeSpan
	}
	lo = n / 3
	return lo, lo + min(max(n/3, 1), rangeSpan)
}
