package cmd

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hdig/hdig/cache"
	audit "github.com/hdig/hdig/check"
	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
	"github.com/spf13/cobra"
)

// auditOptions are the flags of hdig check.
type auditOptions struct {
	URLs     []string
	JSON     bool
	JUnit    string
	Format   string
	Strict   bool
	Headers  []string
	Want     string
	Accept   string
	BaseETag string
	Base     string
	CacheDir string
	IM       string
	MaxBody  string
	Timeout  time.Duration
	MaxTime  time.Duration
	Parallel int
	Zsync    bool
	Origin   string
	Location bool
	Insecure bool
	CACert   string
	Sign     getSignOptions // --trust-key: signature.* (getsignflags.go)
}

func init() { register(newCheckCmd) }

func newCheckCmd(ios *IOStreams) *cobra.Command {
	o := &auditOptions{}
	c := &cobra.Command{
		Use:   "check URL...",
		Short: "Audit an origin's digests, ranges, codings and deltas (a CI gate)",
		Long: `Audit how origins serve RFC 9530 digests: each URL gets the same list of
checks, each with a stable id, a status (pass, fail, warn, skip), a
message saying what was expected and what came back, and the RFC section
it rests on. URLs are checked concurrently (--parallel); the requests of
one URL are sent one after the other: GET, HEAD, a Range GET, a GET
asking for a content coding, a GET with another Want-Repr-Digest, and,
with --base-etag, a delta request (A-IM, If-None-Match), and, when the
origin advertises a zsync control file (or with --zsync), a GET of it and
of the file again.

Checks:
` + auditCheckList() + `
Bodies are read up to --max-body; beyond it the checks that need the
whole body are skipped. delta.226 rebuilds the representation when it has
the base's bytes: --base FILE, else the version with that ETag in hdig's
cache (--cache-dir), else it checks the 226's fields only.

Exit status 0 when nothing failed (--strict: and nothing warned), 1
when a check failed on an origin that was reached (this wins: a network
failure elsewhere does not hide it), else 4 when an origin could not be
reached at all, 2 on usage errors.` + exitStatusHelp,
		Example: `  hdig check https://example.org/app.js https://example.org/big.iso
  hdig check --format github --junit report.xml https://example.org/app.js
  hdig check --json --strict https://example.org/data.json
  hdig check --base-etag '"v1"' --base v1.bin https://example.org/data.bin`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageHelpf(c, "check needs at least one URL")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.URLs = args
			if err := o.validate(c); err != nil {
				return err
			}
			return runAudit(c, ios, o)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.JSON, "json", false, "print the results as JSON on stdout (same as --format json)")
	f.StringVar(&o.JUnit, "junit", "", "also write JUnit XML to `FILE` (one testcase per check)")
	f.StringVar(&o.Format, "format", "text", "output `FORMAT`: text, json or github (workflow annotations)")
	f.BoolVar(&o.Strict, "strict", false, "exit 1 on warnings too (the table, --junit and --format github then report them as failures)")
	f.StringArrayVarP(&o.Headers, "header", "H", nil, "extra request header `'K: V'` (repeatable)")
	f.StringVar(&o.Want, "want", audit.DefaultWant, "Want-Repr-Digest and Want-Content-Digest `LIST` sent")
	f.StringVar(&o.Accept, "accept", verify.DefaultAccept, "`LIST` of algorithms that pass repr-digest.algorithm; deprecated ones warn unless named")
	f.StringVar(&o.BaseETag, "base-etag", "", "ask for a delta from the version with entity tag `ETAG` (quotes included)")
	f.StringVar(&o.Base, "base", "", "`FILE` holding the bytes of the --base-etag version, to rebuild and verify the delta")
	f.StringVar(&o.CacheDir, "cache-dir", "", "hdig cache `DIR` searched for the --base-etag version when --base is not given")
	f.StringVar(&o.IM, "im", audit.DefaultIM, "A-IM `LIST` of the delta request")
	f.StringVar(&o.MaxBody, "max-body", "256MiB", "read at most `SIZE` of each body; larger bodies skip the body checks")
	f.DurationVar(&o.Timeout, "timeout", audit.DefaultTimeout, "give up connecting, or waiting for data, after `DURATION`")
	f.VarP((*seconds)(&o.MaxTime), "max-time", "m", "bound the audit of each URL to `SECONDS` (or a duration: 90, 2m); what is not checked by then fails (0: no limit)")
	f.BoolVar(&o.Zsync, "zsync", false, "check the control file URL.zsync when the origin advertises none (zsync.control)")
	f.StringVar(&o.Origin, "origin", audit.DefaultOrigin, "the Origin sent by cors.expose: a page's `ORIGIN` that should read the digest fields")
	f.IntVar(&o.Parallel, "parallel", audit.DefaultParallel, "check `N` URLs at a time")
	addGetSignFlags(f, &o.Sign)
	f.BoolVarP(&o.Location, "location", "L", false, "follow redirects")
	f.BoolVarP(&o.Insecure, "insecure", "k", false, "do not verify the origins' TLS certificates (an https proxy's still is)")
	f.StringVar(&o.CACert, "cacert", "", "trust the CA certificates in PEM `FILE`")
	return c
}

// auditCheckList lists the check ids with their RFC sections for the help.
func auditCheckList() string {
	var b strings.Builder
	for _, s := range audit.Checks {
		fmt.Fprintf(&b, "  %-26s %s\n", s.ID, s.RFC)
	}
	return b.String()
}

// validate checks the flags that cobra cannot.
func (o *auditOptions) validate(c *cobra.Command) error {
	for _, u := range o.URLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return usageErrorf("bad URL %q: want http:// or https:// with a host", httpfield.Redact(u))
		}
	}
	if o.JSON {
		if c.Flags().Changed("format") && o.Format != "json" {
			return usageErrorf("--json and --format %s disagree; use one of them", o.Format)
		}
		o.Format = "json"
	}
	switch o.Format {
	case "text", "json", "github":
	default:
		return usageErrorf("--format %q: want text, json or github", o.Format)
	}
	if o.Base != "" && o.BaseETag == "" {
		return usageErrorf("--base needs --base-etag: the entity tag of the version FILE holds")
	}
	if o.Parallel < 1 {
		return usageErrorf("--parallel %d: want at least 1", o.Parallel)
	}
	if o.MaxTime < 0 {
		return usageErrorf("-m %v: want a positive duration (0: no limit)", o.MaxTime)
	}
	if o.Timeout <= 0 {
		return usageErrorf("--timeout %v: want a positive duration", o.Timeout)
	}
	return nil
}

// runAudit audits the URLs and reports in the chosen formats.
func runAudit(c *cobra.Command, ios *IOStreams, o *auditOptions) error {
	opts, done, err := o.engineOptions()
	if err != nil {
		return err
	}
	defer done()
	var junit *os.File
	if o.JUnit != "" {
		// Created first, so that an unwritable path fails before the audit.
		if junit, err = os.Create(o.JUnit); err != nil {
			return withExit(ExitUsage, fmt.Errorf("--junit: %w", err))
		}
		defer junit.Close()
	}
	reports := audit.Run(c.Context(), o.URLs, opts)
	if err := c.Context().Err(); err != nil {
		return err
	}
	if err := writeAudit(ios, o.Format, o.Strict, reports); err != nil {
		return err
	}
	if junit != nil {
		write := audit.WriteJUnit
		if o.Strict {
			write = audit.WriteJUnitStrict
		}
		if err := write(junit, reports); err != nil {
			return fmt.Errorf("write --junit %s: %w", o.JUnit, err)
		}
		if err := junit.Close(); err != nil {
			return fmt.Errorf("write --junit %s: %w", o.JUnit, err)
		}
	}
	return exitSilently(auditExitCode(reports, o.Strict))
}

// engineOptions turns the flags into the options of the audit engine; done
// releases the base-version cache.
func (o *auditOptions) engineOptions() (opts audit.Options, done func(), err error) {
	done = func() {}
	opts = audit.Options{BaseETag: o.BaseETag, IM: o.IM, Timeout: o.Timeout, MaxTime: o.MaxTime, Parallel: o.Parallel, Zsync: o.Zsync, Origin: o.Origin, Header: http.Header{}}
	if u, perr := url.Parse(o.Origin); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" {
		return opts, done, usageErrorf("--origin %q: want an origin such as https://example.org", httpfield.Redact(o.Origin))
	}
	if opts.MaxBody, err = parseSize(o.MaxBody); err != nil {
		return opts, done, usageErrorf("--max-body: %v", err)
	}
	if opts.Trust, err = o.Sign.trust(); err != nil {
		return opts, done, err
	}
	if opts.Want, err = verify.ParseWant(o.Want); err != nil {
		return opts, done, usageErrorf("--want: %v", err)
	}
	algs, err := verify.ParseList(o.Accept)
	if err != nil {
		return opts, done, usageErrorf("--accept: %v", err)
	}
	for _, a := range algs {
		opts.Accept = append(opts.Accept, a.Key)
	}
	if opts.Header, opts.Omit, err = requestHeaders(o.Headers); err != nil {
		return opts, done, err
	}
	client, err := fetch.NewClient(fetch.Options{FollowRedirects: o.Location, Insecure: o.Insecure, CACert: o.CACert, Timeout: o.Timeout})
	if err != nil {
		return opts, done, withExit(ExitUsage, err)
	}
	opts.Client = client.HTTP()
	switch {
	case o.Base != "":
		if _, err := os.Stat(o.Base); err != nil {
			return opts, done, withExit(ExitUsage, fmt.Errorf("--base: %w", err))
		}
		opts.Base = audit.FileBase(o.Base)
	case o.BaseETag != "":
		dir := o.CacheDir
		if dir == "" {
			dir, _ = cache.DefaultDir()
		}
		if dir != "" {
			opts.Base, done, err = audit.CacheBase(dir)
		}
		if err != nil {
			return opts, done, withExit(ExitUsage, fmt.Errorf("--cache-dir: %w", err))
		}
	}
	return opts, done, nil
}

// auditExitCode is the exit status of an audit: 1 when a check failed (or,
// with --strict, warned) on an origin that was reached, else 4 when an
// origin could not be reached, else 0. A failed check is an integrity
// failure, which a network failure elsewhere must not hide (exit 4 reads
// as a fault to retry); an unreachable URL's own results (http.status
// failed, the rest not checked) say only that it was not reached.
func auditExitCode(reports []audit.Report, strict bool) int {
	switch {
	case audit.GateTally(reports, strict).Fail > 0:
		return ExitIntegrity
	case unreachable(reports):
		return ExitNetwork
	}
	return ExitOK
}

// writeAudit writes the reports to stdout in the chosen format; text is
// coloured on a terminal.
func writeAudit(ios *IOStreams, format string, strict bool, reports []audit.Report) error {
	switch format {
	case "json":
		if strict { // the summary counts the warnings that fail the gate
			return audit.WriteJSONStrict(ios.Out, reports)
		}
		return audit.WriteJSON(ios.Out, reports)
	case "github":
		if strict { // a warning fails the gate: its annotation is an error
			return audit.WriteGitHubStrict(ios.Out, reports)
		}
		return audit.WriteGitHub(ios.Out, reports)
	}
	forced := os.Getenv("CLICOLOR_FORCE") != "" && os.Getenv("CLICOLOR_FORCE") != "0"
	write := audit.WriteText
	if strict { // a warning fails the gate: the table marks it a failure
		write = audit.WriteTextStrict
	}
	return write(ios.Out, reports, ios.ColorEnabled() && (ios.StdoutTTY || forced))
}

// unreachable says an origin of the reports could not be reached.
func unreachable(reports []audit.Report) bool {
	return slices.ContainsFunc(reports, func(r audit.Report) bool { return r.Unreachable })
}
