package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/zsync"
)

// discover finds the control file and the file: URL is the control file
// when it ends in .zsync; else URL is the file and the control file is
// --zsync-url, or the one its HEAD's Link names.
func (z *zsyncRun) discover(ctx context.Context) error {
	target := z.base.URL
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	switch {
	case z.o.ControlURL != "":
		z.fileURL, z.ctlURL = target, z.o.ControlURL
	case strings.HasSuffix(u.Path, ".zsync"):
		z.ctlURL = target
	default:
		z.fileURL = target
		if z.head == nil {
			if err := z.headFile(ctx); err != nil {
				return err
			}
		}
		link := zsync.ControlLink(z.head.Header.Values("Link"))
		if link == "" {
			return fmt.Errorf("%w: %s: %v; name one with --zsync-url URL.zsync", ErrProtocol, httpfield.Redact(target), errNoControl)
		}
		ref, err := zsync.Resolve(target, link)
		if err != nil {
			return fmt.Errorf("%w: %s: Link <%s>: %v", ErrProtocol, httpfield.Redact(target), link, err)
		}
		// The origin chose this URL: it is held to the rule of its Link
		// mirrors, for the URL, every redirect hop and the address dialled.
		if why := linkRefusal(target, ref); why != "" {
			return fmt.Errorf("%w: %s: Link <%s>: %s", ErrProtocol, httpfield.Redact(target), httpfield.Redact(ref), why)
		}
		z.ctlURL = ref
		return z.fetchControl(context.WithValue(ctx, hopRuleKey{}, target))
	}
	// Without a HEAD yet, none is sent now: the first range response
	// brings the ETag (If-Range of the others) and the Repr-Digest.
	return z.fetchControl(ctx)
}

// headAfter sends the HEAD only when no range response said what it
// would (every block came from seeds); an origin that refuses HEAD leaves
// the file without a Repr-Digest to check.
func (z *zsyncRun) headAfter(ctx context.Context) {
	if z.head != nil {
		return
	}
	if err := z.headFile(ctx); err != nil {
		z.o.Warnf("HEAD %s: %v (no Repr-Digest)", httpfield.Redact(z.fileURL), err)
	}
}

// headFile sends HEAD for the file.
func (z *zsyncRun) headFile(ctx context.Context) error {
	req := z.base.sub(z.fileURL)
	req.Method = http.MethodHead
	res, err := z.client.Do(ctx, req, DiscardSink{})
	if err != nil {
		return err
	}
	z.head = res
	return nil
}

// fetchControl gets and parses the control file; without a file URL yet,
// the target is the control file's URL header, resolved against it.
func (z *zsyncRun) fetchControl(ctx context.Context) error {
	req := z.base.sub(z.ctlURL)
	// A Length over --max-filesize is refused from the header: the
	// block table is not read.
	sink := newControlSink(maxControlFile, z.base.Limits.MaxFileSize)
	_, err := z.client.Do(ctx, req, sink)
	ctl, perr := sink.result()
	var over *zsync.OverMaxError
	if errors.As(perr, &over) {
		return &limitError{msg: fmt.Sprintf("refused: %s: the control file's Length is %d bytes, over --max-filesize %d", httpfield.Redact(z.ctlURL), over.Length, over.Max)}
	}
	if perr != nil && !errors.Is(perr, errControlAborted) {
		return fmt.Errorf("%w: %s: %v", ErrProtocol, httpfield.Redact(z.ctlURL), perr)
	}
	if err != nil { // its own digest, status or connection: not the file's
		return fmt.Errorf("zsync control file %s: %w", httpfield.Redact(z.ctlURL), err)
	}
	z.ctl = ctl
	if z.fileURL != "" {
		return nil
	}
	if len(ctl.URLs) == 0 {
		return fmt.Errorf("%w: %s: the control file names no URL for the target", ErrProtocol, httpfield.Redact(z.ctlURL))
	}
	if z.fileURL, err = zsync.Resolve(z.ctlURL, ctl.URLs[0]); err != nil {
		return fmt.Errorf("%w: %s: URL %q: %v", ErrProtocol, httpfield.Redact(z.ctlURL), ctl.URLs[0], err)
	}
	// The control file's origin chose the target, as a Link does: it is
	// held to the same rule, for the URL, every hop and the address
	// dialled (fileRule).
	if why := linkRefusal(z.ctlURL, z.fileURL); why != "" {
		return fmt.Errorf("%w: %s: URL %s: %s", ErrProtocol, httpfield.Redact(z.ctlURL), httpfield.Redact(z.fileURL), why)
	}
	z.fileRule = z.ctlURL
	return nil
}

// sub is another request of the fetch r describes, to url: the caller's
// header, retries, policy, Want-Repr-Digest and Want-Content-Digest (sent
// by build, as on every request of hdig get) and checksum mode, so that
// the digests an origin sends only when asked are there to verify, and
// its OnRequest and OnResponse (-v shows every request of the run). On
// another origin than r's, which the origin chose (a Link, a URL: line)
// or the user named (--zsync-url), the header is a mirror's
// (mirrorHeader): any -H field may carry a key.
func (r *Request) sub(url string) *Request {
	h := r.Header.Clone()
	if !SameOrigin(r.URL, url) {
		h = mirrorHeader(r.Header)
	}
	if h == nil { // a caller's nil header: If-Range and the like are set on it
		h = http.Header{}
	}
	return &Request{URL: url, Header: h, Retry: r.Retry, RetryDelay: r.RetryDelay, Policy: r.Policy,
		WantRepr: r.WantRepr, WantContent: r.WantContent, ChecksumMode: r.ChecksumMode,
		OnRequest: r.OnRequest, OnResponse: r.OnResponse}
}
