package cmd

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/verify"
	"github.com/spf13/cobra"
)

// getOptions are the flags of hdig get.
type getOptions struct {
	URL           string
	Output        string
	RemoteName    bool
	Headers       []string
	Method        string
	Data          []string
	DataBinary    string
	UploadFile    string
	Head          bool
	Location      bool
	Insecure      bool
	CACert        string
	Compressed    bool
	WantRepr      string
	WantContent   string
	NoWant        bool
	Accept        string
	RequireDigest bool
	JSON          bool
	NoBuffer      bool
	Silent        bool
	Verbose       bool
	Timeout       time.Duration
	Retry         int
	Range         string
	Parallel      int
	Continue      bool
	Delta         bool
	NoDelta       bool
	NoDictionary  bool
	IM            string
	CacheDir      string
	CacheMax      string
	NoCache       bool
	Zsync         bool
	Seeds         []string
	ZsyncURL      string
	Strategy      string

	Req   requestFlags  // -A, -u, -e, -b, -c, -G, --data-urlencode, -F (getrequest.go)
	Conn  transferFlags // -x, --resolve, -4/-6, -m, --max-redirs, … (gettransfer.go)
	Out   outputFlags   // -f, -S, -w, -i, -D, --output-dir, -R, -J, … (getoutputflags.go)
	Multi multiFlags    // -Z, --parallel-max: several URLs (getmulti.go)
	Mirr  mirrorFlags   // --mirror, --max-mirrors (getmirrorflags.go)

	stdin   io.Reader // read by -T - and --data-binary @-
	label   string    // with several URLs, "URL: " before the verdict line
	jSlot   string    // with several URLs and -J, "N." in the hidden name, one per URL
	Limits  limitFlags
	Expect  expectFlags
	Sign    getSignOptions // --trust-key, --signature-skew (getsignflags.go)
	special bool           // -o names a character device or FIFO
	// zsyncHead is the file's HEAD the strategy chooser sent.
	zsyncHead *fetch.Result
	// offersDelta: a cached base exists, so the plain GET offers A-IM.
	offersDelta bool
}

// Defaults of the contract.
const (
	defaultWant = "sha-256=10, sha-512=5"
)

func init() {
	register(newGetCmd)
	addClassifier(classifyFetch)
}

func newGetCmd(ios *IOStreams) *cobra.Command {
	o := &getOptions{}
	c := &cobra.Command{
		Use:   "get URL...",
		Short: "Fetch a URL, verify its digests, write the body",
		Long: `Fetch a URL like curl, asking for RFC 9530 digests (Want-Repr-Digest,
Want-Content-Digest), verifying Content-Digest over the message and
Repr-Digest over the whole representation, and printing a verdict on stderr.

The body is released only once verified: with -o it goes to FILE.hdig-part
and is renamed onto FILE after verification; to stdout it is held back
(in memory, then a temporary file) unless -N is given.

With -o, a file of 16 MiB or more whose origin sends a strong ETag and
Accept-Ranges is fetched in concurrent Range pieces (--parallel; default
min(4, size/8 MiB), 1 turns it off), each checked against the first
response's ETag, length and Repr-Digest and against its own
Content-Digest; Repr-Digest is computed while the pieces land. A 200 to
a piece (the file changed, or Range is ignored) restarts as one stream.
Ctrl-C keeps FILE.hdig-part and its sidecar FILE.hdig-resume; -C resumes
them with If-Range, and on a complete FILE fetches nothing when a HEAD's
Repr-Digest matches it. Progress bars go to stderr on a terminal only.

-r asks for byte ranges; a single range is written as received, several
are read from the multipart/byteranges answer and written one after
another, in the order asked (an answer in another order, or leaving out
a range the file holds, is a protocol error). Content-Digest is checked; Repr-Digest covers the whole
representation and is reported ignored; -r never uses the cache.

A 304 to your own conditions (-H 'If-None-Match: …', If-Modified-Since)
is "not modified": nothing is written and FILE is left as it was; with
--expect or --checksum-file, FILE is compared with the expected digests
(a mismatch exits 1). A
201 or 204 without content to an upload (-T, -d, --data-binary; - or @-
reads stdin) carries the Repr-Digest of the stored resource: after a PUT
to the same URL it is compared with what was sent (RFC 9530 B.5); one
naming another resource (Content-Location) is reported, not checked.` + exitStatusHelp,
		Example: `  hdig get -o big.iso https://example.org/big.iso
  hdig get --require-digest https://example.org/app.js > app.js
  hdig get --parallel 4 -o big.iso https://example.org/big.iso
  hdig get -C -o big.iso https://example.org/big.iso
  hdig get -r 0-1023,-1024 -o ends.bin https://example.org/big.iso
  hdig get -I https://example.org/big.iso
  hdig get --compressed --accept sha-256,md5 https://example.org/page.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.stdin = ios.In
			return runGets(c, ios, o, continueArgs(o, args))
		},
	}
	f := c.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "write the body to `FILE` (renamed into place only after verification; - is stdout)")
	f.BoolVarP(&o.RemoteName, "remote-name", "O", false, "write to a file named like the URL's last path segment")
	f.StringArrayVarP(&o.Headers, "header", "H", nil, "extra request header `'K: V'` (repeatable)")
	f.StringVarP(&o.Method, "request", "X", "", "request `METHOD`")
	f.VarP(&dataFlag{list: &o.Data, all: &o.Req.data}, "data", "d", "request body `DATA` (@FILE reads a file, @- stdin, line breaks dropped); adds Content-Digest and Repr-Digest")
	f.Var(&onceFlag{s: &o.DataBinary, what: "body"}, "data-binary", "request body `DATA`, @FILE or @- (stdin), sent as is (once)")
	f.VarP(&onceFlag{s: &o.UploadFile, what: "upload"}, "upload-file", "T", "PUT `FILE` as the request body (- reads stdin; once)")
	f.BoolVarP(&o.Head, "head", "I", false, "HEAD; print the response headers to stdout")
	f.BoolVarP(&o.Location, "location", "L", false, "follow redirects")
	f.BoolVarP(&o.Insecure, "insecure", "k", false, "do not verify the origin's TLS certificate (an https proxy's still is)")
	f.StringVar(&o.CACert, "cacert", "", "trust the CA certificates in PEM `FILE`")
	f.BoolVar(&o.Compressed, "compressed", false, "ask for gzip, br, zstd, deflate; verify the encoded bytes, write them decoded")
	f.StringVar(&o.WantRepr, "want-repr", defaultWant, "Want-Repr-Digest `LIST`")
	f.StringVar(&o.WantContent, "want-content", defaultWant, "Want-Content-Digest `LIST`")
	f.BoolVar(&o.NoWant, "no-want", false, "send no Want-Repr-Digest or Want-Content-Digest")
	f.StringVar(&o.Accept, "accept", verify.DefaultAccept, "`LIST` of algorithms accepted as proof; deprecated ones count only when named")
	f.BoolVar(&o.RequireDigest, "require-digest", false, "exit 3 unless an accepted digest verified the representation")
	f.BoolVar(&o.JSON, "json", false, "print the verdict as JSON on stdout (needs -o or -I)")
	f.BoolVarP(&o.NoBuffer, "no-buffer", "N", false, "to stdout: stream the body as it arrives instead of holding it until verified")
	f.BoolVarP(&o.Silent, "silent", "s", false, "print no verdict line, no progress and, as curl, no error message (see -S)")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "print request and response headers on stderr")
	f.DurationVar(&o.Timeout, "timeout", fetch.DefaultTimeout, "give up connecting, or waiting for data, after `DURATION` (positive)")
	f.IntVar(&o.Retry, "retry", 0, "retry a failed transfer (with -o: a failed piece) `N` times with backoff (0 or more); a piece failing its Content-Digest is fetched again N times (at least once)")
	f.StringVarP(&o.Range, "range", "r", "", "ask for byte `RANGE`s: START-END, START- or -SUFFIX, comma-separated")
	f.IntVar(&o.Parallel, "parallel", 0, "fetch in `N` concurrent range pieces, to -o FILE or to stdout held back (default with -o: 1 below 16 MiB, else up to 4 once one stream proves slower than 64 MiB/s; to stdout: 1, one stream)")
	f.BoolVarP(&o.Continue, "continue", "C", false, "resume FILE.hdig-part (needs -o; curl's \"-C -\" is accepted too)")
	f.BoolVar(&o.Delta, "delta", true, "ask for a 226 delta against a cached base version (on when the cache holds one)")
	f.BoolVar(&o.NoDelta, "no-delta", false, "do not ask for a delta (versions are still cached)")
	f.BoolVar(&o.NoDictionary, "no-dictionary", false, "do not offer a stored compression dictionary (RFC 9842; responses are still stored as dictionaries)")
	f.StringVar(&o.IM, "im", fetch.DefaultIM, "the A-IM `LIST` sent with a delta request")
	f.StringVar(&o.CacheDir, "cache-dir", "", "base-version cache `DIR` (default $HDIG_CACHE_DIR, else the user cache dir + /hdig)")
	f.StringVar(&o.CacheMax, "cache-max", "1GiB", "size cap of the base-version cache (`SIZE`); least recently used versions go first")
	f.BoolVar(&o.NoCache, "no-cache", false, "neither use nor fill the base-version cache")
	f.BoolVar(&o.Zsync, "zsync", false, "rebuild into -o FILE from seeds and ranges with a zsync control file: URL itself (.zsync), --zsync-url, or the one the file's Link names")
	f.StringArrayVar(&o.Seeds, "seed", nil, "with --zsync, a local `FILE` holding blocks of the target, e.g. its old version (repeatable; -o FILE and cached versions are seeds too)")
	f.StringVar(&o.Strategy, "strategy", "auto", "the way to a new version: `auto` (a 226 from an origin known to send them, a dcb/dcz body when a stored dictionary matches, else zsync when the file advertises a control file and a cached base exists, else a plain GET), delta, dictionary, zsync or full")
	f.StringVar(&o.ZsyncURL, "zsync-url", "", "with --zsync, the control file's `URL` (relative to URL, e.g. file.iso.zsync) when the origin advertises none")
	o.Limits.add(f)
	o.Req.add(f)
	o.Conn.add(f)
	o.Out.add(f)
	o.Multi.add(f)
	o.Mirr.add(f)
	o.Expect.add(f)
	addGetSignFlags(f, &o.Sign)
	return c
}

// client is the one fetch.Client of a get: TLS, redirects, timeouts and the
// transfer flags (proxy, --resolve, -4/-6, …), with the cookie jar of -b
// and -c; req's headers get -A, -e, -u and the command-line cookies. Every
// request of the get (the transfer, a strategy's HEAD, zsync's ranges)
// goes through it.
func (o *getOptions) client(req *fetch.Request) (*fetch.Client, error) {
	copts := fetch.Options{FollowRedirects: o.Location, Insecure: o.Insecure, CACert: o.CACert, Timeout: o.Timeout}
	if err := o.Conn.options(&copts); err != nil {
		return nil, err
	}
	var err error
	if copts.Jar, err = o.Req.apply(req.Header); err != nil {
		return nil, err
	}
	client, err := fetch.NewClient(copts)
	if err != nil {
		return nil, withExit(ExitUsage, err)
	}
	return client, nil
}

// transfer makes one fetch of o.URL; runGet (getrun.go) does the rest.
func (o *getOptions) transfer(ctx context.Context, ios *IOStreams, dump *headerDump) (*fetch.Result, error) {
	req, err := o.request()
	if err != nil {
		return nil, err
	}
	defer req.Body.Close()
	if err := o.resolveOutput(); err != nil {
		return nil, err
	}
	client, err := o.client(req)
	if err != nil {
		return nil, err
	}
	req.RetryDelay, req.KeepErrorBody = o.Conn.RetryDelay, o.Out.FailWithBody
	if err := o.Expect.resolve(ctx, ios, o, client, req); err != nil {
		return nil, err
	}
	o.verbose(ios, req)
	req.OnResponse = chain(req.OnResponse, func(r *http.Response) { dump.add(r, true) })
	if req.Delta, err = o.delta(ios); err != nil {
		return nil, err
	}
	if req.Delta != nil {
		defer req.Delta.Cache.Close()
	}
	if err := o.Mirr.options(o, req, &fetch.DownloadOptions{}); err != nil {
		return nil, err
	}
	if o.Continue && !o.downloads(req) {
		return nil, usageErrorf("-C resumes a plain GET to -o FILE; drop the Range header and the conditions (If-None-Match, If-Modified-Since, If-Range, …)")
	}
	if o.downloads(req) {
		opts := fetch.DownloadOptions{Parallel: o.Parallel, Continue: o.Continue, Scratch: o.Out.RemoteHeaderName, Progress: progressFor(ios, o.Silent)}
		if err := o.Mirr.options(o, req, &opts); err != nil {
			return nil, err
		}
		return client.Download(ctx, req, o.Output, opts)
	}
	if o.holds(req) {
		// Held back for stdout: spooled anyway, so fetched as -o is, but
		// in one stream unless --parallel asks for pieces: into the spool
		// one stream cost no more wall time and less memory (bench/get.sh).
		opts := fetch.DownloadOptions{Parallel: max(o.Parallel, 1), Progress: fetch.NoProgress{}}
		if !ios.StdoutTTY {
			opts.Progress = progressFor(ios, o.Silent)
		}
		if err := o.Mirr.options(o, req, &opts); err != nil {
			return nil, err
		}
		if opts.Parallel == 1 {
			opts.LinkMirrors = 0 // one stream means the origin's alone
		}
		return client.Hold(ctx, req, &fetch.HeldSink{Out: ios.Out}, opts)
	}
	sink, err := o.sink(ios)
	if err != nil {
		return nil, withExit(ExitUsage, err)
	}
	if o.Head && o.Output != "" {
		// -I -o FILE: the heads are FILE's, released as a body is (curl's
		// -I -o); -D - prints them too.
		if dump.out != nil {
			dump.out = io.MultiWriter(dump.out, sink)
		} else {
			dump.out = sink
		}
	}
	if !o.Head && (o.Output != "" || !ios.StdoutTTY) {
		// A bar on a terminal's stderr, unless the body goes to that
		// terminal too (curl's rule).
		req.Progress = progressFor(ios, o.Silent)
		defer req.Progress.Finish()
	}
	return client.Get(ctx, req, sink)
}

// warnf prints a warning on stderr unless -s.
func (o *getOptions) warnf(ios *IOStreams) func(string, ...any) {
	return func(f string, a ...any) {
		if !o.Silent {
			linef(ios.ErrOut, "warning: "+f, a...)
		}
	}
}

// classifyFetch maps the client engine's errors to exit statuses.
func classifyFetch(err error) (int, bool) {
	var se *fetch.StatusError
	switch {
	case errors.Is(err, fetch.ErrMismatch):
		return ExitIntegrity, true
	case errors.Is(err, fetch.ErrUnverified):
		return ExitUnverified, true
	case errors.Is(err, fetch.ErrTooLarge):
		return ExitNetwork, true // contract: the transfer was refused
	case errors.Is(err, fetch.ErrProtocol):
		return ExitProtocol, true
	case errors.Is(err, fetch.ErrOutput), errors.Is(err, fetch.ErrInput):
		// Like an unreadable input file: the contract has no other code
		// for a local file that cannot be written.
		return ExitUsage, true
	case errors.As(err, &se), errors.Is(err, fetch.ErrNetwork):
		return ExitNetwork, true
	}
	return 0, false
}
