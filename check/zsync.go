package check

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/zsync"
)

// checkZsync decides zsync.control: the control file the origin advertises
// (Link rel=describedby type=application/x-zsync), or URL.zsync with
// Options.Zsync, must be there, parse, and describe the file's bytes: its
// Length, every block's checksums (recomputed) and its SHA-1.
func (a *audit) checkZsync(ctx context.Context) {
	id := "zsync.control"
	ref := zsync.ControlLink(a.full.header.Values("Link"))
	how := "advertised by Link"
	if ref == "" {
		if !a.opts.Zsync {
			a.s.skip(id, `no Link rel="describedby" type="application/x-zsync" (--zsync checks URL.zsync)`)
			return
		}
		ref, how = a.url+".zsync", "asked for with --zsync"
	}
	if a.full.capped {
		a.s.skip(id, "the file is larger than --max-body: its bytes cannot be compared with a control file")
		return
	}
	ctlURL, err := zsync.Resolve(a.url, ref)
	if err != nil {
		a.s.fail(id, fmt.Sprintf("control file link <%s>: %v; want an http(s) URI reference", ref, err))
		return
	}
	ctl, refused, msg := a.fetchControl(ctx, ctlURL, how)
	if ctl == nil {
		a.s.fail(id, msg)
		return
	}
	if ctl.Length != a.full.size {
		a.s.fail(id, fmt.Sprintf("%s says Length %d, the file has %d bytes; want a control file made from this version", httpfield.Redact(ctlURL), ctl.Length, a.full.size))
		return
	}
	r, err := a.do(ctx, request{label: "GET", method: http.MethodGet, header: http.Header{"Accept-Encoding": {"identity"}}, keepAll: true})
	defer r.close()
	switch {
	case err != nil:
		a.s.fail(id, fmt.Sprintf("GET of the file again failed: %v", err))
	case r.status != http.StatusOK || r.err != nil || r.capped:
		a.s.fail(id, fmt.Sprintf("GET of the file again returned %d with %s; want 200 and the whole file", r.status, bytesOf(r.size)))
	case !sameBytes(r, a.full):
		msg := fmt.Sprintf("GET of the file again returned other bytes (%s) than the audited GET (%s)", bytesOf(r.size), bytesOf(a.full.size))
		if changed(a.full, r) {
			a.s.skip(id, msg+fmt.Sprintf(" under another ETag (%s, then %s): the file changed during the audit", a.full.header.Get("ETag"), r.header.Get("ETag")))
			return
		}
		a.s.fail(id, msg+" under the same ETag: the control file would be checked against bytes that are not the representation audited")
	default:
		if err := ctl.Check(r.body()); err != nil {
			a.s.fail(id, fmt.Sprintf("%s does not describe the file: %v", httpfield.Redact(ctlURL), trimZsync(err)))
			return
		}
		msg := fmt.Sprintf("%s (%s) matches the file: Length %d, %d blocks of %d bytes, SHA-1 %x%s", httpfield.Redact(ctlURL), how, ctl.Length, ctl.Blocks(), ctl.Blocksize, ctl.SHA1, retryNote(refused))
		if why := a.controlURLs(ctlURL, ctl); why != "" {
			a.s.warn(id, msg+"; but "+why)
			return
		}
		a.s.pass(id, msg)
	}
}

// fetchControl gets and parses the control file, retried as the origin
// asks (doRetryAfter: a control file is made on demand, and hdig serve
// answers 503 while its build slots are taken); on failure it returns nil
// and the message of the check. refused are the refusals retried.
func (a *audit) fetchControl(ctx context.Context, ctlURL, how string) (ctl *zsync.Control, refused []int, msg string) {
	sub := *a
	sub.url = ctlURL
	// Asked for as hdig get --zsync asks (its Want-*-Digest), so that the
	// digests it would compare are there to compare.
	h := wantHeader(a.opts.Want)
	h.Set("Accept-Encoding", "identity")
	r, refused, err := sub.doRetryAfter(ctx, request{label: "GET", method: http.MethodGet, header: h, keepAll: true})
	defer r.close()
	switch {
	case err != nil:
		return nil, refused, fmt.Sprintf("GET %s (%s) failed%s: %v", httpfield.Redact(ctlURL), how, retryNote(refused), err)
	case r.status != http.StatusOK:
		return nil, refused, fmt.Sprintf("GET %s (%s) returned %d %s%s, want 200 with the control file", httpfield.Redact(ctlURL), how, r.status, http.StatusText(r.status), retryNote(refused))
	case r.err != nil || r.capped:
		return nil, refused, fmt.Sprintf("GET %s: want the whole control file within --max-body, got %s", httpfield.Redact(ctlURL), bytesOf(r.size))
	}
	// hdig get --zsync verifies the control file's response as any other
	// (fetch.Client.Do): a digest of it that does not match its bytes
	// fails there, so it fails here, whatever the bytes describe.
	bad, notes := ownWrong(r, outsideFields)
	a.noteOutside("zsync.control", httpfield.Redact(ctlURL), "its "+bytesOf(r.size), notes)
	if bad != "" {
		return nil, refused, fmt.Sprintf("%s (%s): %s (hdig get --zsync refuses a control file its digests do not describe)", httpfield.Redact(ctlURL), how, bad)
	}
	ctl, err = zsync.Read(r.body())
	if err != nil {
		return nil, refused, fmt.Sprintf("%s does not parse: %v", httpfield.Redact(ctlURL), trimZsync(err))
	}
	return ctl, refused, ""
}

// controlURLs says why a zsync client given the control file would not
// fetch the audited file: no URL line, or none that resolves to it ("" when
// one does). A client fetches its ranges from the URL lines, not from
// where the control file was found.
func (a *audit) controlURLs(ctlURL string, ctl *zsync.Control) string {
	if len(ctl.URLs) == 0 {
		return "it has no URL line: a zsync client given it cannot find the file"
	}
	for _, ref := range ctl.URLs {
		if got, err := zsync.Resolve(ctlURL, ref); err == nil && sameResource(got, a.url) {
			return ""
		}
	}
	return fmt.Sprintf("its URL line %q resolves to %s, not the file: zsync clients fetch their ranges there", ctl.URLs[0], resolved(httpfield.Redact(ctlURL), ctl.URLs[0]))
}

// sameResource says URLs x and y name the same resource: scheme, host
// (case-insensitive), path once unescaped ("%24" and "$" are one byte) and
// query. Unparsable URLs name nothing.
func sameResource(x, y string) bool {
	u, err1 := url.Parse(x)
	v, err2 := url.Parse(y)
	return err1 == nil && err2 == nil && strings.EqualFold(u.Scheme, v.Scheme) && strings.EqualFold(u.Host, v.Host) &&
		u.Path == v.Path && u.RawQuery == v.RawQuery
}

// resolved is ref resolved against base for a message.
func resolved(base, ref string) string {
	u, err := zsync.Resolve(base, ref)
	if err != nil {
		return fmt.Sprintf("nothing usable (%v)", err)
	}
	return u
}

// trimZsync drops the package prefix from a zsync error.
func trimZsync(err error) string {
	s := err.Error()
	if len(s) > 7 && s[:7] == "zsync: " {
		return s[7:]
	}
	return s
}

// sameBytes reports whether two responses read whole carried the same
// bytes: the same length and sha-256.
func sameBytes(x, y *response) bool {
	vx, okx := lookup(x.sums, "sha-256")
	vy, oky := lookup(y.sums, "sha-256")
	return okx && oky && x.size == y.size && bytes.Equal(vx, vy)
}
