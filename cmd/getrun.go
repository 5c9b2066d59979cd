package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/spf13/cobra"
)

// runGet fetches o.URL and reports it: the verdict, then what curl's
// output flags ask for (-D, -w), in that order.
func runGet(c *cobra.Command, ios *IOStreams, o *getOptions) error {
	o.URL = uploadURL(schemeless(o.URL), o.UploadFile)
	if hostOverride(o.Headers) {
		// The cache keeps versions by URL; under another Host the URL's
		// address serves another site's resource, whose ETag may be one
		// of the cached versions' (nginx's mtime-size): no base is used.
		o.NoCache = true
	}
	if o.Conn.pins(o.URL) {
		// --resolve sends the URL to another address than its name's (a
		// staging server): what it answers is not the URL's version as
		// its origin serves it, and a later 304 from the origin to that
		// version's ETag would release it as the origin's.
		o.NoCache = true
	}
	if o.Insecure && strings.HasPrefix(strings.ToLower(o.URL), "https:") {
		// Under -k nothing proves who sent the bytes: a version or a
		// dictionary kept now would be released by a later 304, or used as
		// a base, in runs that check the certificate (--cacert trusts a
		// private CA and keeps the cache).
		o.NoCache = true
	}
	if o.Strategy == "zsync" {
		o.Zsync = true // --strategy zsync is --zsync, with its --seed and --zsync-url
	}
	if o.Zsync || len(o.Seeds) > 0 || o.ZsyncURL != "" {
		return runGetZsync(c, ios, o)
	}
	if zs, err := o.applyStrategy(c.Context()); err != nil || zs {
		if err != nil {
			return err
		}
		return runGetZsync(c, ios, o)
	}
	start := time.Now()
	format, err := o.checkOutputFlags()
	if err != nil {
		return err
	}
	ctx := c.Context()
	if strings.HasSuffix(o.Req.Referer, ";auto") {
		ctx = fetch.WithAutoReferer(ctx) // curl's -e ';auto'
	}
	if o.Conn.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Conn.MaxTime)
		defer cancel()
	}
	dump := &headerDump{dump: o.Out.DumpHeader != "" && o.Out.DumpHeader != "-"}
	switch {
	case o.JSON: // -I's heads go into the JSON: stdout is one object
	case o.Out.DumpHeader == "-":
		dump.out = ios.Out // with -I -o FILE, FILE's too (transfer)
	case o.Head && o.Output != "": // -I -o FILE: the heads are FILE's (transfer)
	case o.Out.Include || o.Head:
		// -I's heads are -i's: redirect hops and retried attempts too.
		dump.out = ios.Out
	}
	ctx = fetch.WithRedirectHook(ctx, func(resp *http.Response, hops int) {
		if o.Verbose {
			dumpResponse(ios.ErrOut, resp, "< ")
		}
		dump.redirected(resp, hops)
	})
	res, err := o.transfer(ctx, ios, dump)
	if err == nil {
		o.remember(res)
	}
	if err != nil && ctx.Err() == context.DeadlineExceeded && c.Context().Err() == nil && !quietError(err) {
		err = withExit(ExitNetwork, fmt.Errorf("-m %v: operation timed out: %w", o.Conn.MaxTime, err))
	}
	if err == nil && o.Output != "" && !o.special {
		o.Output, err = o.Out.finish(ios, o.Output, res, o.clash)
	}
	o.Out.errorBody(ios, o.Output, err, o.Silent)
	if derr := dump.save(o.Out.DumpHeader); derr != nil && err == nil {
		err = derr
	}
	cause := err // reportGet turns a verdict it has printed into a bare exit status
	err = reportGet(ios, o, res, err)
	if format != "" {
		w := &writeOut{res: res, err: cause, url: o.URL, filename: o.Output, total: time.Since(start),
			redirects: dump.redirects(), exit: ExitCode(err), verdict: verdictName(res, cause)}
		expandWriteOut(format, w, ios.Out, ios.ErrOut)
	}
	return o.silenced(err)
}

// silenced is err, or under -s without -S its exit status alone: curl's
// -s prints no error message.
func (o *getOptions) silenced(err error) error {
	if err != nil && o.Silent && !o.Out.ShowError && !quietError(err) {
		return exitSilently(ExitCode(err))
	}
	return err
}

// checkOutputFlags checks curl's output flags against the others and
// returns -w's format.
func (o *getOptions) checkOutputFlags() (string, error) {
	x := &o.Out
	switch {
	case x.WriteOut != "" && o.JSON:
		return "", usageErrorf("-w and --json cannot be combined: both write to stdout")
	case (x.Include || x.DumpHeader == "-") && o.JSON:
		return "", usageErrorf("-i and -D - cannot be combined with --json: stdout carries one JSON object")
	case x.RemoteHeaderName && !o.RemoteName:
		return "", usageErrorf("-J needs -O: it renames the file -O writes")
	case x.Fail && x.FailWithBody:
		return "", usageErrorf("-f and --fail-with-body cannot be combined")
	}
	if o.RemoteName && o.Output != "" {
		return "", usageErrorf("-o and -O cannot be used together")
	}
	named := true // -O's name comes from the URL
	if o.RemoteName {
		name, err := remoteName(o.URL)
		if err != nil && !(x.RemoteHeaderName && unnamed(err)) {
			return "", err
		}
		// With -J, a URL without a file name (a download endpoint ending
		// in "/", or one ending in a name of hdig's) is named by
		// Content-Disposition alone, as curl -OJ does.
		named = err == nil
		if !named {
			name = "download"
		}
		o.Output, o.RemoteName = name, false
	}
	var err error
	if o.Output, err = x.place(o.Output); err != nil {
		return "", err
	}
	if x.RemoteHeaderName {
		// The bytes land under a name of hdig's beside the file until the
		// response names the file: a file named like the URL is not
		// touched when Content-Disposition names another. Each of several
		// URLs has its own (jSlot): two ending in the same name (get?id=1,
		// get?id=2) would share one part file, and -Z would rename one's
		// bytes as the other's.
		x.remoteName = ""
		if named {
			x.remoteName = o.Output
		}
		hidden := ".hdig-J." + o.jSlot
		o.Output = filepath.Join(filepath.Dir(o.Output), hidden+fetch.FitName(filepath.Base(o.Output), fetch.NameMax-len(hidden)))
	}
	if x.WriteOut == "" {
		return "", nil
	}
	return readWriteOut(x.WriteOut, o.stdin)
}

// urlProblem is url.Parse's error without the URL, which its text repeats,
// password and all: a message names the URL redacted itself.
func urlProblem(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// remoteName is -O's file name: the URL's last path segment, which is
// empty in a URL ending in "/" (not the directory's name).
func remoteName(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", usageErrorf("bad URL %q: %v", httpfield.Redact(rawURL), urlProblem(err))
	}
	name := lastSegment(u)
	if strings.HasSuffix(u.Path, "/") || name == "/" || name == "." || name == ".." || name == "" {
		return "", withExit(ExitUsage, fmt.Errorf("-O: the URL %q %w; use -o FILE", httpfield.Redact(rawURL), errNoFileName))
	}
	if fetch.OwnName(name) {
		// The origin chooses it, as it does Content-Disposition's (which
		// -J refuses alike): it would write over another download's part
		// or sidecar, or plant one for a later -C to trust.
		return "", withExit(ExitUsage, fmt.Errorf("-O: the URL %q ends in %q, %w; use -o FILE", httpfield.Redact(rawURL), name, errOwnFileName))
	}
	return name, nil
}

// lastSegment is the URL's last path segment, decoded unless it encodes a
// slash: "a%2Fb" stays "a%2Fb", as curl -O names it, rather than "b", a
// name the URL never had; nor a control or format character ("a%0Ab",
// an ESC sequence, %00), which no URL shows and -J drops (httpfield.Unprintable).
func lastSegment(u *url.URL) string {
	seg := path.Base(u.EscapedPath())
	name, err := url.PathUnescape(seg)
	if err != nil || strings.ContainsRune(name, '/') || strings.ContainsFunc(name, httpfield.Unprintable) {
		return seg
	}
	return name
}

// errNoFileName is remoteName's error for a URL without a last path
// segment, errOwnFileName for one whose last segment is a name hdig gives
// its own files (fetch.OwnName): with either, -J may still name the file
// after Content-Disposition (unnamed).
var (
	errNoFileName  = errors.New("has no file name")
	errOwnFileName = errors.New("a name hdig gives its own files (.hdig-)")
)

// unnamed says remoteName's err is that the URL names no file -O can
// write.
func unnamed(err error) bool {
	return errors.Is(err, errNoFileName) || errors.Is(err, errOwnFileName)
}

// hostOverride reports whether an -H field names the Host.
func hostOverride(headers []string) bool {
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "Host") && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}
