package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/verify"
	"github.com/klauspost/compress/gzip"
)

// errBadGzip marks request content that does not decode as gzip.
var errBadGzip = errors.New("request content is not valid gzip")

// received is what store learned from the request content.
type received struct {
	wire   map[string][]byte // digests of the content as received
	stored []verify.Digest   // digests of the bytes stored
}

// store streams the request content into a temporary file (uploadDir),
// verifies the request's digests, and renames the file into place.
func (s *Server) store(w http.ResponseWriter, r *http.Request, target string, created, gz bool) {
	if s.malformedDigest(w, r, r.Header) {
		return
	}
	space := &tempSpace{budget: s.uploads}
	defer space.release() // after the file is removed or renamed (deferred before)
	// A declared length that does not fit now is refused before its body
	// is read; it is not held, though: space is taken as bytes arrive, so
	// that clients declaring --max-upload and sending a byte now and then
	// do not hold the uploads' disk for everyone with no disk used.
	if r.ContentLength > s.uploads.limit-s.uploads.inUse() {
		s.uploadSpace(w, r)
		return
	}
	tmp, f, err := s.createUploadTemp()
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	space.w = f
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			s.removeQuietly(tmp)
		}
	}()
	fields := requestFields(r.Header)
	storedAlgs := union([]verify.Algorithm{sha256Alg}, chooseAlgs(r.Header, verify.WantReprDigest))
	wire := wireAlgs(fields)
	if declaresDigestTrailer(r) {
		wire = verify.Algorithms // its algorithms are known only at the end
	}
	got, err := s.receive(w, r, space, gz, wire, storedAlgs)
	switch {
	case errors.Is(err, errUploadSpace):
		s.uploadSpace(w, r)
		return
	case errors.Is(err, errBadGzip):
		s.problem(w, r, problem{Status: http.StatusBadRequest, Detail: errBadGzip.Error()})
		return
	case isTooLarge(err):
		s.tooLarge(w, r)
		return
	case err != nil:
		s.cfg.logger.Info("upload failed", "path", r.URL.Path, "err", err)
		s.problem(w, r, problem{Status: http.StatusBadRequest, Detail: "the request content could not be read"})
		return
	}
	if s.malformedDigest(w, r, r.Trailer) {
		return
	}
	trailer := requestFields(r.Trailer) // read with the body
	if f, alg, ok := notComputed(trailer, got.wire); ok {
		s.problem(w, r, problem{Status: http.StatusBadRequest, Field: f, Algorithm: alg,
			Detail: fmt.Sprintf("%s %s came in a trailer the request did not declare (Trailer), so it was not computed; nothing was stored", f, alg)})
		return
	}
	if ms := mismatches(append(fields, trailer...), got.wire); len(ms) > 0 {
		s.digestMismatch(w, r, ms)
		return
	}
	if err := f.Sync(); err != nil {
		s.internalError(w, r, err)
		return
	}
	// The file's inode, to know it again after the rename (answerStored).
	written, err := fileid.File(f)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if err := f.Close(); err != nil {
		s.internalError(w, r, err)
		return
	}
	// The preconditions were evaluated before the content arrived; another
	// upload may have replaced the file since: evaluate them again, and
	// keep other uploads out until this one is in place and cached.
	fi, etag, err := s.lockTarget(r, target)
	defer s.writeMu.Unlock()
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if r.Method == http.MethodPut {
		if s.targetIsDir(w, r, fi) || !s.writePreconditions(w, r, target, fi != nil, etag) {
			return
		}
		created = fi == nil
	}
	if err := s.root.MkdirAll(path.Dir(target), 0o755); err != nil {
		s.problem(w, r, problem{Status: http.StatusConflict, Detail: "cannot create the parent directory"})
		return
	}
	s.observeReplace(r, target, created)
	if err := s.root.Rename(tmp, target); err != nil {
		s.internalError(w, r, err)
		return
	}
	renamed = true
	if storedHook != nil {
		storedHook(target)
	}
	s.answerStored(w, r, target, created, gz, got.stored, written)
}

// lockedHook, when set (by tests), runs each time lockTarget takes the
// write lock, before anything is done under it.
var lockedHook func()

// storedHook, when set (by tests), runs after an upload is renamed into
// place, before its digests are cached.
var storedHook func(target string)

// receive copies the request content to f, hashing the received bytes
// with wire and the stored (decoded) bytes with stored.
func (s *Server) receive(w http.ResponseWriter, r *http.Request, f io.Writer, gz bool, wire, stored []verify.Algorithm) (received, error) {
	body := http.MaxBytesReader(w, r.Body, s.cfg.maxUpload)
	buf := make([]byte, 256<<10)
	if !gz {
		h := verify.NewHasher(union(wire, stored))
		defer h.Close()
		if _, err := io.CopyBuffer(io.MultiWriter(f, h), body, buf); err != nil {
			return received{}, err
		}
		sums := h.Sums()
		return received{wire: sumMap(sums), stored: pick(sums, stored)}, nil
	}
	wh, sh := verify.NewHasher(wire), verify.NewHasher(stored)
	defer wh.Close()
	defer sh.Close()
	in := &countingReader{r: body}
	zr, err := gzip.NewReader(io.TeeReader(in, wh))
	if err != nil {
		return received{}, gzipError(err)
	}
	dec := &inflationLimit{r: zr, wire: in, max: s.cfg.maxUpload}
	if _, err := io.CopyBuffer(io.MultiWriter(f, sh), dec, buf); err != nil {
		return received{}, gzipError(err)
	}
	// Hash any bytes after the gzip stream too: they are content.
	if _, err := io.CopyBuffer(io.Discard, io.TeeReader(body, wh), buf); err != nil {
		return received{}, err
	}
	return received{wire: sumMap(wh.Sums()), stored: sh.Sums()}, nil
}

func gzipError(err error) error {
	if isTooLarge(err) || errors.Is(err, errUploadSpace) {
		return err
	}
	return fmt.Errorf("%w: %v", errBadGzip, err)
}

func isTooLarge(err error) bool {
	var mb *http.MaxBytesError
	return errors.As(err, &mb)
}

// answerStored sends 201 Created (with Location) or 204 No Content with
// the Repr-Digest of the stored representation and, when stored as sent,
// its ETag. The digests are cached for the file the path names when it is
// still the file written (its device and inode: written), not one another
// process renamed over it since; untrusted, as for any file that has not
// settled (identity.go): once renamed into place, the bytes are no longer
// the server's alone, and a write in the same ctime tick would not show.
func (s *Server) answerStored(w http.ResponseWriter, r *http.Request, target string, created, gz bool, stored []verify.Digest, written fileid.ID) {
	if fi, err := s.root.Stat(target); err == nil {
		if id := fileid.Of(fi); written.Strong() && id.Dev == written.Dev && id.Ino == written.Ino {
			s.cache.get(keyOf(target, fi)).put(stored, false)
		}
	}
	loc := (&url.URL{Path: "/" + target}).EscapedPath()
	h := w.Header()
	h.Set("Content-Location", loc)
	var sha []byte
	for _, d := range stored {
		if d.Algorithm == sha256Alg.Key {
			sha = d.Value
		}
	}
	if !gz {
		h.Set("ETag", etagFor(sha))
	}
	if algs := chooseAlgs(r.Header, verify.WantReprDigest); len(algs) > 0 {
		h.Set(verify.ReprDigest, verify.FormatDigests(pick(stored, algs)))
	}
	if !created {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h.Set("Location", loc)
	w.WriteHeader(http.StatusCreated)
}

// observeReplace lets a delta step archive the version being replaced.
func (s *Server) observeReplace(r *http.Request, target string, created bool) {
	obs, ok := s.cfg.delta.(ReplaceObserver)
	if !ok || created {
		return
	}
	rep, release, err := s.identityRep(r, target)
	if err != nil {
		return
	}
	defer release()
	obs.BeforeReplace(rep)
}

// malformedDigest refuses an upload whose digest field (in the header, or
// in the trailer once the content was read) cannot be read: 400, naming
// the field, nothing stored. It reports whether it answered.
func (s *Server) malformedDigest(w http.ResponseWriter, r *http.Request, h http.Header) bool {
	name, why, bad := malformedField(h)
	if bad {
		s.problem(w, r, problem{Type: problemBase + "malformed-digest", Title: "Malformed Digest",
			Status: http.StatusBadRequest, Field: name,
			Detail: fmt.Sprintf("%s cannot be read (%s), so the content cannot be checked against it; nothing was stored", name, why)})
	}
	return bad
}

// digestMismatch answers 400 with a problem naming each failing member.
func (s *Server) digestMismatch(w http.ResponseWriter, r *http.Request, ms []mismatch) {
	detail := fmt.Sprintf("%s %s does not match the received content; nothing was stored", ms[0].Field, ms[0].Algorithm)
	s.problem(w, r, problem{
		Type: problemBase + "digest-mismatch", Title: "Digest Mismatch", Status: http.StatusBadRequest,
		Detail: detail, Field: ms[0].Field, Algorithm: ms[0].Algorithm,
		Expected: ms[0].Expected, Actual: ms[0].Actual, Mismatches: ms,
	})
}
