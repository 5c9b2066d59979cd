package cmd

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
	"github.com/spf13/cobra"
)

func init() { register(newServeCmd) }

// serveOptions are the flags and arguments of hdig serve.
type serveOptions struct {
	dir       string
	addr      string
	writable  bool
	maxUpload string
	stateDir  string
	history   int
	histMax   string
	tlsCert   string
	tlsKey    string
	writeTO   time.Duration
	maxConns  int
	cors      string
	sign      serveSignOptions
	dupes     []string // --duplicate
	dicts     []string
	dictAge   time.Duration // --dictionary-max-age
}

func newServeCmd(ios *IOStreams) *cobra.Command {
	o := &serveOptions{}
	c := &cobra.Command{
		Use:   "serve DIR",
		Short: "Serve DIR as a reference origin with digests, ranges and content codings",
		Long: `Serve DIR over HTTP as a reference origin for RFC 9530: every 200, 206,
304 and HEAD response carries a strong ETag and Repr-Digest (sha-256 unless
Want-Repr-Digest prefers another algorithm), Content-Digest when
Want-Content-Digest asks for it, ranges and multipart/byteranges, and gzip,
br and zstd variants of text types, each with its own ETag and digests.

Files are served through os.Root: no path, symlink or encoded ".." leaves
DIR, and dotfiles are never served. With --writable, PUT stores a file and
POST to a directory creates one; a request whose Content-Digest or
Repr-Digest does not match is refused with 400 and nothing is stored.

Earlier versions of each file served are kept (--history, under --state-dir
or a temporary directory): a GET with A-IM and an If-None-Match naming one
gets 226 IM Used with a vcdiff, gdiff or diff -e delta (RFC 3229), IM,
Delta-Base, and Repr-Digest of the current representation.

With --cors, scripts on the listed origins (or any, with *) may read the
digest fields (Access-Control-Expose-Headers) and upload with digests
(preflights allow Content-Digest, Repr-Digest and Want-*-Digest).

With --dictionary PATTERN, files whose URL matches are sent with
Use-As-Dictionary and kept in that history: a later request whose
Available-Dictionary names one, with dcb or dcz in Accept-Encoding, gets the
body encoded against it (RFC 9842), with Unencoded-Digest over the decoded
bytes.

The first line on stdout is "serving DIR at http://HOST:PORT/", printed once
the certificate, key and address have been checked (bad ones exit 2 before
it); the access log goes to stderr. A client that takes no response bytes for
--write-timeout is dropped; beyond --max-conns connections the longest-idle
(or longest-stalled: no bytes, or fewer than 1 KiB a second) one is closed. SIGINT or SIGTERM stops the server cleanly.

With --sign-key, each response with a digest field in its header is signed
(RFC 9421, label sig1) over "@status", the request's path and query
("@path";req, "@query";req: a query that is not printable ASCII is left
out), content-type, content-encoding and the digest fields sent in the
header, with created, expires and keyid; with an Ed25519 key
it also carries Unencoded-Digest and the signature-based SRI profile
(label sri, tag "ed25519-integrity", keyid the base64 public key) that
Chromium checks for <script integrity="ed25519-KEY">.` + exitStatusHelp,
		Example: `  hdig serve ./public
  hdig serve ./public --addr 127.0.0.1:0 --writable --max-upload 100MiB
  hdig serve ./public --state-dir /var/lib/hdig --history 8
  hdig serve ./public --cors http://localhost:8000 --writable
  hdig serve ./public --sign-key origin.pem

  hdig serve ./public --dictionary '/assets/*'`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageHelpf(c, "serve takes exactly one DIR, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.dir = args[0]
			return runServe(c.Context(), ios, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: the kernel picks one)")
	f.BoolVar(&o.writable, "writable", false, "accept PUT and POST, verified against the request's digests")
	f.StringVar(&o.maxUpload, "max-upload", "1GiB", "largest request content accepted (`SIZE`, e.g. 500MiB)")
	f.StringVar(&o.stateDir, "state-dir", "", "keep precompressed variants, zsync control files, earlier versions and the digest index in `DIR`, outside the served one; DIR and its subdirectories must be the user's own, not writable by its group or others (default: memory and a temporary directory)")
	f.StringVar(&o.histMax, "history-max", "2GiB", "bytes of earlier versions kept for all files together (`SIZE`); the oldest go first")
	f.IntVar(&o.history, "history", delta.DefaultHistory, "earlier versions kept per file for 226 deltas (`N`; 0 turns deltas off)")
	f.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this certificate `FILE` (needs --tls-key)")
	f.StringVar(&o.tlsKey, "tls-key", "", "private key `FILE` for --tls-cert")
	f.DurationVar(&o.writeTO, "write-timeout", server.DefaultWriteTimeout, "drop a client that takes no response bytes for this `DURATION` (0: never)")
	f.StringArrayVar(&o.dupes, "duplicate", nil, "advertise a mirror of DIR: `URL` of a directory with the same files, sent as Link rel=duplicate on each file (RFC 6249; repeatable)")
	f.DurationVar(&o.dictAge, "dictionary-max-age", server.DefaultDictionaryMaxAge, "responses offered as dictionaries are fresh for this `DURATION` (Cache-Control: max-age; clients use a dictionary only while fresh; 0: no Cache-Control)")
	f.StringArrayVar(&o.dicts, "dictionary", nil, "offer files whose URL matches `PATTERN` (RFC 9842, e.g. /assets/*) as compression dictionaries; dcb and dcz against the version a client holds (repeatable; needs --history)")
	f.IntVar(&o.maxConns, "max-conns", server.DefaultMaxConns(), "serve at most `N` connections at once; beyond, the longest-idle keep-alive one is closed (0: no cap)")
	f.StringVar(&o.cors, "cors", "", "let scripts on these `ORIGINS` (comma-separated, e.g. http://localhost:8000, or *) read the digest fields and upload with digests")
	addServeSignFlags(f, &o.sign)
	return c
}

// runServe starts the origin and serves until ctx is cancelled.
func runServe(ctx context.Context, ios *IOStreams, o *serveOptions) error {
	if fi, err := os.Stat(o.dir); err != nil || !fi.IsDir() {
		return usageErrorf("%s is not a readable directory", o.dir)
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return usageErrorf("--tls-cert and --tls-key go together")
	}
	maxUpload, err := parseSize(o.maxUpload)
	if err != nil {
		return usageErrorf("--max-upload: %v", err)
	}
	if err := checkAddr(o.addr); err != nil {
		return err
	}
	tlsConfig, err := loadTLS(o.tlsCert, o.tlsKey)
	if err != nil {
		return err
	}
	if o.writeTO < 0 || o.maxConns < 0 {
		return usageErrorf("--write-timeout %v, --max-conns %d: want 0 or more", o.writeTO, o.maxConns)
	}
	tuneGC(ctx)
	logOut := server.NewLogWriter(ios.ErrOut)
	defer logOut.Close()
	logger := slog.New(slog.NewTextHandler(logOut, nil))
	opts := []server.Option{
		server.WithLogger(logger),
		server.WithAccessLog(logOut),
		server.WithMaxUpload(maxUpload),
		server.WithWriteTimeout(o.writeTO),
		server.WithMaxConns(o.maxConns),
	}
	if o.writable {
		opts = append(opts, server.WithWritable())
	}
	if o.cors != "" {
		opts = append(opts, server.WithCORS(strings.Split(o.cors, ",")))
	}
	if sign, err := o.sign.signOption(); err != nil {
		return err
	} else if sign != nil {
		opts = append(opts, sign)
	}
	if len(o.dupes) > 0 {
		opts = append(opts, server.WithDuplicates(o.dupes...))
	}
	if o.stateDir != "" {
		if err := server.CheckStateDir(o.dir, o.stateDir); err != nil {
			return usageErrorf("--state-dir: %v", err)
		}
		opts = append(opts, server.WithStateDir(o.stateDir))
	}
	if o.history < 0 {
		return usageErrorf("--history %d: want 0 or more", o.history)
	}
	if len(o.dicts) > 0 && o.history == 0 {
		return usageErrorf("--dictionary needs --history 1 or more: dictionaries are the versions kept there")
	}
	for _, p := range o.dicts {
		if err := server.CheckDictionaryPattern(p); err != nil {
			return usageErrorf("--dictionary: %v", err)
		}
		opts = append(opts, server.WithDictionary(p))
	}
	if o.dictAge < 0 {
		return usageErrorf("--dictionary-max-age %v: want 0 or more", o.dictAge)
	}
	opts = append(opts, server.WithDictionaryMaxAge(o.dictAge))
	if o.history > 0 {
		dir, cleanup, err := historyDir(o.stateDir, o.dir)
		if err != nil {
			return fmt.Errorf("delta history: %w", err)
		}
		defer cleanup()
		d, err := delta.New(dir, o.history, 0, logger)
		if err != nil {
			return fmt.Errorf("delta history: %w", err)
		}
		defer d.Close() // after the server's Close, before cleanup
		histMax, err := parseSize(o.histMax)
		if err != nil {
			return usageErrorf("--history-max: %v", err)
		}
		d.SetMaxTotal(histMax)
		opts = append(opts, server.WithDelta(d))
	}
	s, err := server.New(o.dir, opts...)
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return usageErrorf("--addr %s: cannot listen: %s", o.addr, fetch.NetCause(err))
	}
	s.StartIndexer(ctx)
	scheme := "http"
	if o.tlsCert != "" {
		scheme = "https"
	}
	fmt.Fprintf(ios.Out, "serving %s at %s://%s/\n", o.dir, scheme, ln.Addr())
	return s.Serve(ctx, ln, tlsConfig)
}

// checkAddr checks the syntax of --addr: HOST:PORT with a port number from
// 0 to 65535 or a known service name.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("--addr %q: want HOST:PORT", addr)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return usageErrorf("--addr %q: want a port from 0 to 65535, got %q", addr, port)
	}
	return nil
}

// loadTLS loads and checks the certificate and key before anything is
// announced: a missing file or a key that does not match is a usage error.
func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" {
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, usageErrorf("--tls-cert %s, --tls-key %s: %v", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}}, nil
}

// historyDir is where earlier versions are kept: under --state-dir, which
// keeps them across restarts, else in a temporary directory removed on exit,
// made outside the served directory dir (the server refuses one inside).
func historyDir(stateDir, dir string) (string, func(), error) {
	if stateDir != "" {
		return filepath.Join(stateDir, "history"), func() {}, nil
	}
	parents := []string{os.TempDir()}
	if c, err := os.UserCacheDir(); err == nil {
		parents = append(parents, c)
	}
	for _, p := range parents {
		if server.CheckStateDir(dir, filepath.Join(p, "hdig-serve-history")) != nil {
			continue
		}
		tmp, err := os.MkdirTemp(p, "hdig-serve-history-")
		if err != nil {
			return "", nil, err
		}
		return tmp, func() { os.RemoveAll(tmp) }, nil
	}
	return "", nil, fmt.Errorf("no temporary directory outside %s; give --state-dir", dir)
}
