package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/verify"
)

// Compression Dictionary Transport (RFC 9842), origin side. A file whose
// URL matches a --dictionary pattern is sent with Use-As-Dictionary (once
// its version is kept in the history) and Vary: Accept-Encoding,
// Available-Dictionary. A later request whose Available-Dictionary names a
// kept version of a file that advertised a pattern the request URL
// matches, and whose Accept-Encoding lists dcb or dcz, gets the body
// encoded against that version (dictionary_encode.go).

// DictionaryStore keeps the versions offered as dictionaries. The delta
// handler's history (server/delta) implements it; WithDictionary needs a
// WithDelta handler that does.
type DictionaryStore interface {
	// KeepVersion keeps cur, the identity of a file, waiting for the
	// copy; it reports whether the version is kept.
	KeepVersion(ctx context.Context, cur *Representation) bool
	// FilesWithVersion lists the files a version whose sha-256 is sum is
	// kept for.
	FilesWithVersion(sum []byte) []string
	// OpenVersion opens the kept version of file whose sha-256 is sum.
	OpenVersion(file string, sum []byte) (*os.File, int64, error)
}

// dictRules are the --dictionary patterns and the store of versions.
type dictRules struct {
	patterns []string
	store    DictionaryStore
}

// dictOrigin stands for the server's own origin when patterns are
// matched: every URL compared is a path on this server.
var dictOrigin = &url.URL{Scheme: "http", Host: "origin.invalid"}

// WithDictionary offers the files whose URL matches pattern (RFC 9842 URL
// pattern: a path such as "/assets/*", or one relative to the file's
// directory such as "*.js") as compression dictionaries. Repeatable; the
// first pattern that matches a file is the one it advertises.
func WithDictionary(pattern string) Option {
	return func(c *config) error {
		if err := CheckDictionaryPattern(pattern); err != nil {
			return err
		}
		c.dictPatterns = append(c.dictPatterns, pattern)
		return nil
	}
}

// DefaultDictionaryMaxAge is how long a response offered as a dictionary
// is fresh (Cache-Control: max-age): clients keep and use a dictionary
// only while it is fresh (RFC 9842 §2.1.3).
const DefaultDictionaryMaxAge = time.Hour

// WithDictionaryMaxAge sets the max-age of the responses offered as
// dictionaries; 0 sends no Cache-Control (clients then go by heuristics
// from Last-Modified, and Chromium keeps no dictionary).
func WithDictionaryMaxAge(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("dictionary max age %v: want 0 or more", d)
		}
		c.dictMaxAge = d
		return nil
	}
}

// CheckDictionaryPattern checks a --dictionary pattern: one the dictionary
// package compiles, naming no scheme or host (the server does not know the
// origin its clients use).
func CheckDictionaryPattern(pattern string) error {
	if strings.Contains(pattern, "://") {
		return fmt.Errorf("dictionary pattern %q: want a path pattern such as /assets/*, got an absolute URL", pattern)
	}
	if _, err := dictionary.CompilePattern(pattern, dictOrigin.JoinPath("/")); err != nil {
		return fmt.Errorf("dictionary pattern: %v", err)
	}
	return nil
}

// initDictionaries sets up the dictionary rules from the configuration.
func (s *Server) initDictionaries() error {
	if len(s.cfg.dictPatterns) == 0 {
		return nil
	}
	store, ok := s.cfg.delta.(DictionaryStore)
	if !ok {
		return errors.New("dictionaries need the version history (a delta handler that keeps versions)")
	}
	s.dict = &dictRules{patterns: s.cfg.dictPatterns, store: store}
	s.variants.encode = s.encodeVariant
	return nil
}

// fileURL is the URL of a served file, on dictOrigin.
func fileURL(name string) *url.URL {
	return &url.URL{Scheme: dictOrigin.Scheme, Host: dictOrigin.Host, Path: "/" + name}
}

// requestURL is the request's URL on dictOrigin.
func requestURL(r *http.Request) *url.URL {
	return &url.URL{Scheme: dictOrigin.Scheme, Host: dictOrigin.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
}

// patternFor returns the pattern a URL advertises: the first that
// matches it, compiled with the URL as base.
func (d *dictRules) patternFor(u *url.URL) (string, bool) {
	for _, p := range d.patterns {
		if pat, err := dictionary.CompilePattern(p, u); err == nil && pat.Match(u) {
			return p, true
		}
	}
	return "", false
}

// allows reports whether a dictionary from file may encode the response
// to a request for u: the pattern file advertised matches u (RFC 9842
// §2.2.2, both URLs on this origin).
func (d *dictRules) allows(file string, u *url.URL) bool {
	base := fileURL(file)
	p, ok := d.patternFor(base)
	if !ok {
		return false
	}
	pat, err := dictionary.CompilePattern(p, base)
	return err == nil && pat.Match(u)
}

// dictionaryID is the id advertised for a file: its URL path, or when
// that is longer than RFC 9842 allows, the path's sha-256.
func dictionaryID(name string) string {
	p := fileURL(name).EscapedPath()
	if len(p) <= dictionary.MaxIDLen {
		return p
	}
	sum := sha256.Sum256([]byte(p))
	return fmt.Sprintf("sha256-%x", sum)
}

// dictionaryFields sets the RFC 9842 fields of a response: Vary and
// Use-As-Dictionary for a file a pattern matches, Unencoded-Digest for a
// dcb or dcz body (over the identity, with the algorithms of Repr-Digest).
func (s *Server) dictionaryFields(r *http.Request, h http.Header, rep *Representation, plan *digestPlan) {
	if s.dict == nil || rep.File == "" {
		return
	}
	id := rep
	if rep.identity != nil {
		id = rep.identity
	}
	pattern, ok := s.dict.patternFor(requestURL(r))
	if !ok {
		return
	}
	if !rep.vary {
		h.Add("Vary", "Accept-Encoding")
	}
	h.Add("Vary", "Available-Dictionary")
	if id.reopen != nil && s.dict.store.KeepVersion(r.Context(), id) {
		if refBase(r) != "" { // the client resolves a relative pattern against the path asked
			pattern = dictionary.AbsolutePattern(pattern, fileURL(id.File))
		}
		use := dictionary.Use{Match: pattern, ID: dictionaryID(rep.File), Type: dictionary.TypeRaw}
		if v, err := use.Explicit(); err == nil {
			h.Set("Use-As-Dictionary", v)
			if age := s.cfg.dictMaxAge; age > 0 && h.Get("Cache-Control") == "" {
				h.Set("Cache-Control", "max-age="+strconv.FormatInt(int64(age/time.Second), 10))
			}
		}
	}
	if isDictCoding(rep.Encoding) && len(plan.repr) > 0 {
		s.unencodedDigest(r, h, id, plan)
	}
}

// unencodedDigest sets Unencoded-Digest over the identity's bytes.
func (s *Server) unencodedDigest(r *http.Request, h http.Header, id *Representation, plan *digestPlan) {
	algs := make([]verify.Algorithm, 0, len(plan.repr))
	for _, d := range plan.repr {
		if a, ok := verify.Lookup(d.Algorithm); ok {
			algs = append(algs, a)
		}
	}
	ds, err := unencodedDigests(r.Context(), id, algs)
	if err != nil {
		return
	}
	h.Set(verify.UnencodedDigest, verify.FormatDigests(ds))
}

func isDictCoding(enc string) bool { return enc == dictionary.CodingDCB || enc == dictionary.CodingDCZ }
