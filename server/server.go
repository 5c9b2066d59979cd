package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/internal/ownfile"
)

// Server is the reference origin: it serves a directory with ETag,
// Repr-Digest, Content-Digest, ranges and content codings, and optionally
// accepts verified uploads.
type Server struct {
	cfg      config
	dir      string
	root     *os.Root
	top      *dirLstat // Lstat of names at the top of root (lstat_linux.go)
	cache    *digestCache
	variants *variantStore
	gate     *encodeGate  // when and how many variants are built
	hashing  *hashBudget  // bytes of ranges being hashed, per client and overall
	ranges   *rangeCache  // digests of ranges hashed before
	held     *memBudget   // multipart bodies held for a header Content-Digest
	requests atomic.Int64 // GET and HEAD requests seen, for WithChangingETag
	private  []fileid.ID  // state directories, never served (private.go)
	zsync    *zsyncCache  // control files made, and the bound on making them
	small    *smallFiles  // small files in memory (smallfiles.go)
	index    *digestIndex // trusted sha-256 of file versions (index.go)
	dict     *dictRules   // RFC 9842 dictionaries (dictionary.go), nil: none
	handler  http.Handler
	writeMu  sync.Mutex // uploads: precondition, rename and cache entry, one at a time
	uploads  *memBudget // temporary disk of the uploads in progress (uploadsAtOnce)

	indexHashes atomic.Int64 // files the indexer hashed (tests count them)
	rootLstats  atomic.Int64 // Lstat calls through os.Root (tests count them)
	begun       atomic.Int64 // requests begun (the indexer gives way to them)
	indexPauses atomic.Int64 // the indexer's pauses for requests (tests count them)
}

// New returns a Server for dir. The directory is opened through os.Root, so
// no request can reach a file outside it, through ".." or symlinks.
func New(dir string, opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if err := checkPrivate(dir, &cfg); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if cfg.stateDir != "" {
		// What it holds is trusted (the digest index, the variants): it
		// must be the user's alone to write.
		if err := ownfile.MkdirAll(cfg.stateDir, 0o755); err != nil {
			root.Close()
			return nil, fmt.Errorf("state directory: %w", err)
		}
	}
	vs, err := newVariantStore(cfg.stateDir, cfg.variantMemory)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("state directory: %w", err)
	}
	index, err := openIndex(cfg.stateDir)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("state directory: %w", err)
	}
	zc, err := openControlStore(cfg.stateDir)
	if err != nil {
		index.close()
		root.Close()
		return nil, fmt.Errorf("state directory: %w", err)
	}
	s := &Server{cfg: cfg, dir: dir, root: root, cache: newDigestCache(maxCacheEntries), variants: vs, small: newSmallFiles(),
		gate: newEncodeGate(), hashing: newHashBudget(), ranges: newRangeCache(), zsync: newZsyncCache(zc),
		held: &memBudget{limit: maxHeldMemory}, uploads: &memBudget{limit: min(cfg.maxUpload, math.MaxInt64/uploadsAtOnce) * uploadsAtOnce}, private: privateIDs(&cfg), index: index, top: openDirLstat(root)}
	if err := s.initDictionaries(); err != nil {
		s.top.close()
		root.Close()
		return nil, err
	}
	if n := s.cleanUploads(); n > 0 {
		cfg.logger.Info("removed temporary files of interrupted uploads", "dir", uploadDir, "files", n)
	}
	s.handler = s.accessLog(s.progress(s.cors(s.signing(http.HandlerFunc(s.serveHTTP)))))
	return s, nil
}

// Handler returns the HTTP handler, access log included.
func (s *Server) Handler() http.Handler { return s.handler }

// Dir returns the served directory as given to New.
func (s *Server) Dir() string { return s.dir }

// Close stops the background builds of variants and releases the
// directory handle.
func (s *Server) Close() error {
	s.gate.close()
	s.index.close()
	s.top.close()
	return s.root.Close()
}

// Logger returns the logger set with WithLogger.
func (s *Server) Logger() *slog.Logger { return s.cfg.logger }

// HTTPServer returns an http.Server for the handler with the limits a
// public-facing origin wants: 10 s to read request headers, 64 KiB of
// headers, 2 min idle keep-alive, and the write timeout (WithWriteTimeout)
// from the end of the request head to the first response bytes; the
// handler moves it forward with every write. Bodies have no overall
// deadline, so large uploads and downloads over slow links are not cut off.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.handler,
		WriteTimeout:      s.cfg.writeTimeout,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.cfg.logger.Handler(), slog.LevelWarn),
	}
}

// shutdownGrace is how long Serve waits for requests in flight after ctx
// is done before closing their connections.
const shutdownGrace = 5 * time.Second

// Serve serves on ln until ctx is done, then shuts down cleanly. With a
// TLS configuration (its certificates loaded) it serves HTTPS (HTTP/2
// enabled). It returns nil after a shutdown caused by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener, tlsConfig *tls.Config) error {
	srv := s.HTTPServer()
	ln = wrapSendListener(ln)
	if s.cfg.maxConns > 0 {
		lim := newConnLimiter(ln, s.cfg.maxConns)
		ln, srv.ConnState = lim, lim.track
	}
	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			srv.TLSConfig = tlsConfig.Clone()
			errc <- srv.ServeTLS(ln, "", "")
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// allowed lists the methods of the Allow header.
func (s *Server) allowed() string {
	if s.cfg.writable {
		return "GET, HEAD, PUT, POST, OPTIONS"
	}
	return "GET, HEAD, OPTIONS"
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if d := s.cfg.faults.firstByteDelay; d > 0 && !s.cfg.sleep(r.Context(), d) {
		return
	}
	asked := r
	p, ok := removeDotSegments(r.URL.Path)
	if !ok {
		s.problem(w, r, problem{Status: http.StatusNotFound})
		return
	}
	if p != r.URL.Path && strings.HasPrefix(r.URL.Path, "/") {
		// What follows sees the path nginx would serve; the signature's
		// "@path";req and the access log keep the path asked for. An
		// upload gets the request as received (asked): net/http fills
		// its Trailer when the body ends, never a clone's.
		r = r.Clone(r.Context())
		r.URL.Path, r.URL.RawPath = p, ""
	}
	name, err := fileName(r.URL.Path)
	if err != nil {
		s.problem(w, r, problem{Status: http.StatusNotFound})
		return
	}
	if r.Method != http.MethodOptions && !s.slashFits(r.URL.Path, name) {
		s.problem(w, r, problem{Status: http.StatusNotFound})
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		s.serveGet(w, r, name)
	case http.MethodOptions:
		w.Header().Set("Allow", s.allowed())
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPut, http.MethodPost:
		if !s.cfg.writable {
			s.methodNotAllowed(w, r)
			return
		}
		s.serveWrite(w, asked, name)
	default:
		s.methodNotAllowed(w, r)
	}
}

// slashFits reports whether a URL path ending in "/" names a directory,
// as such a path does (nginx answers 404 otherwise): "/f.txt/" is not the
// file f.txt, whose relative links (the zsync Link) would resolve under a
// path that does not exist, nor a name a PUT may create.
func (s *Server) slashFits(urlPath, name string) bool {
	if name == "." || !strings.HasSuffix(urlPath, "/") {
		return true
	}
	fi, err := s.root.Stat(name)
	return err == nil && fi.IsDir()
}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", s.allowed())
	s.problem(w, r, problem{Status: http.StatusMethodNotAllowed,
		Detail: "allowed methods: " + s.allowed()})
}

// sleep waits for d or until ctx is done; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
