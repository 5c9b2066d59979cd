package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/hdig/hdig/httpfield"
)

// serveWrite answers PUT (store the content at the target path) and POST
// to a directory (store it under a new name in that directory).
//
// Storage is atomic: the content streams into a locked temporary file in
// DIR/.hdig-uploads while being hashed; only when every supported member of
// the request's digest fields (uploadFields) matched is it renamed over the
// target. On any failure the target is untouched and the temporary
// file removed. A request with Content-Encoding: gzip is verified over the
// gzip bytes (its content and, for a full PUT, its representation data) and
// stored decoded; the response then omits ETag, as RFC 9110 §9.3.4 forbids
// a validator for a transformed representation, but carries Repr-Digest
// and Content-Location of the stored identity representation.
func (s *Server) serveWrite(w http.ResponseWriter, r *http.Request, name string) {
	// Present, whatever its value (§14.5): an empty or malformed one still
	// says the content is a part, not the file.
	if _, partial := r.Header["Content-Range"]; partial {
		s.problem(w, r, problem{Status: http.StatusBadRequest,
			Detail: "partial PUT with Content-Range is not supported (RFC 9110 §14.5)"})
		return
	}
	// The codings over all the field's lines (RFC 9110 §5.3): the first
	// line alone would take "gzip" then "br" (or "gzip" twice) for gzip.
	enc := httpfield.ContentCoding(r.Header.Values("Content-Encoding"))
	if enc != "" && enc != "gzip" && enc != "x-gzip" {
		w.Header().Set("Accept-Encoding", "gzip")
		s.problem(w, r, problem{Status: http.StatusUnsupportedMediaType,
			Detail: "request content codings accepted: gzip"})
		return
	}
	// A name a later listing, log line or download would show as
	// something else (one rule with hdig get's for an origin's names).
	if httpfield.UnsafeName(name) {
		s.problem(w, r, problem{Status: http.StatusBadRequest,
			Detail: "the path holds a control or format character, or is not UTF-8: nothing is stored under such a name"})
		return
	}
	gz := enc == "gzip" || enc == "x-gzip"
	if r.ContentLength > s.cfg.maxUpload {
		s.tooLarge(w, r)
		return
	}
	target, created, ok := s.writeTarget(w, r, name)
	if !ok {
		return
	}
	s.store(w, r, target, created, gz)
}

// writeTarget resolves the file a write stores: the path itself for PUT
// (missing parent directories are created once the content verified),
// a new name in the directory for POST.
func (s *Server) writeTarget(w http.ResponseWriter, r *http.Request, name string) (string, bool, bool) {
	fi, err := s.root.Stat(name)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.fileError(w, r, err)
		return "", false, false
	}
	if err := s.checkLinks(name); err != nil && (exists || errors.Is(err, errHidden)) {
		s.fileError(w, r, err)
		return "", false, false
	}
	if r.Method == http.MethodPost {
		if !exists {
			s.problem(w, r, problem{Status: http.StatusNotFound})
			return "", false, false
		}
		if !fi.IsDir() {
			s.methodNotAllowed(w, r)
			return "", false, false
		}
		return path.Join(name, randomName()+extFor(r.Header.Get("Content-Type"))), true, true
	}
	if name == "." || s.targetIsDir(w, r, fi) {
		return "", false, false
	}
	etag := ""
	if exists && etagConditional(r) {
		if etag, _, err = s.targetETag(r, name); err != nil {
			s.internalError(w, r, err)
			return "", false, false
		}
	}
	if !s.writePreconditions(w, r, name, exists, etag) {
		return "", false, false
	}
	return name, !exists, true
}

// targetIsDir answers 409 Conflict when a PUT's target (fi, nil when
// there is none) is a directory, which a file cannot replace: when the
// request arrives, and again once its content is in, when another upload
// may have made it one (store). It reports whether it answered.
func (s *Server) targetIsDir(w http.ResponseWriter, r *http.Request, fi fs.FileInfo) bool {
	if fi == nil || !fi.IsDir() {
		return false
	}
	s.problem(w, r, problem{Status: http.StatusConflict, Detail: "the target is a directory"})
	return true
}

// writePreconditions evaluates If-Match and If-None-Match, over all their
// lines, against the current file (RFC 9110 §13.1.1, §13.1.2), whose ETag
// is etag (targetETag; "" when it does not exist), and If-Unmodified-Since
// when there is no If-Match (§13.2.2): 412 when they fail. A list that
// cannot be read fails its precondition, whichever field it is in.
func (s *Server) writePreconditions(w http.ResponseWriter, r *http.Request, name string, exists bool, etag string) bool {
	im, inm := r.Header.Values("If-Match"), r.Header.Values("If-None-Match")
	if len(im) == 0 && !s.unmodifiedSince(r, name) {
		s.problem(w, r, problem{Status: http.StatusPreconditionFailed})
		return false
	}
	ok := true
	if len(im) > 0 {
		m, err := listMatches(im, etag, exists, false)
		ok = err == nil && m
	}
	if ok && len(inm) > 0 {
		m, err := listMatches(inm, etag, exists, true)
		ok = err == nil && !m
	}
	if !ok {
		s.problem(w, r, problem{Status: http.StatusPreconditionFailed})
	}
	return ok
}

// unmodifiedSince evaluates r's If-Unmodified-Since against the file
// name (RFC 9110 §13.1.4): false when the file was modified after the
// date, to the second, as http.ServeContent compares it for a GET. A
// field that is not one HTTP-date is ignored, and so is one for a file
// that does not exist, which has no modification date.
func (s *Server) unmodifiedSince(r *http.Request, name string) bool {
	vs := r.Header.Values("If-Unmodified-Since")
	if len(vs) != 1 {
		return true
	}
	since, err := http.ParseTime(vs[0])
	if err != nil {
		return true
	}
	fi, err := s.root.Stat(name)
	return err != nil || !fi.ModTime().Truncate(time.Second).After(since)
}

// listMatches reports whether an entity-tag list (the lines of If-Match or
// If-None-Match) matches the current representation: "*" when it exists,
// else a tag equal to etag, compared strongly for If-Match and weakly for
// If-None-Match (weak). err: the list is too long to read.
func listMatches(lines []string, etag string, exists, weak bool) (bool, error) {
	tags, err := httpfield.ParseETags(lines)
	if err != nil {
		return false, err
	}
	for _, t := range tags {
		switch {
		case !exists:
		case t == "*":
			return true, nil
		case weak && strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/"):
			return true, nil
		case t == etag && !strings.HasPrefix(t, "W/"):
			return true, nil
		}
	}
	return false, nil
}

// uploadSpace answers an upload that would take the uploads in progress
// past their bound on temporary disk (uploadsAtOnce): 503, to be retried.
func (s *Server) uploadSpace(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	w.Header().Set("Retry-After", "5")
	s.problem(w, r, problem{Status: http.StatusServiceUnavailable,
		Detail: "the uploads in progress hold all the temporary space the server allows; try again later"})
}

func (s *Server) tooLarge(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	s.problem(w, r, problem{Status: http.StatusRequestEntityTooLarge,
		Detail: "the content exceeds the server's upload limit"})
}

// extFor picks a file extension for a POSTed media type.
func extFor(ctype string) string {
	mt, _, _ := mime.ParseMediaType(ctype)
	switch mt {
	case "application/json":
		return ".json"
	case "text/plain":
		return ".txt"
	case "text/html":
		return ".html"
	case "", "application/octet-stream":
		return ".bin"
	}
	if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
		return exts[0]
	}
	return ".bin"
}

// randomName returns 16 random hexadecimal digits.
func randomName() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// removeQuietly removes a temporary file, ignoring errors.
func (s *Server) removeQuietly(name string) {
	if err := s.root.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.cfg.logger.Warn("cannot remove temporary file", "file", name, "err", err)
	}
}
