package server

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/hdig/hdig/verify"
)

// sha256Alg is the algorithm of the ETag.
var sha256Alg, _ = verify.Lookup("sha-256")

// serveGet answers GET and HEAD for a file or directory.
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, name string) {
	if s.serveZsync(w, r, name) {
		return
	}
	lfi, err := s.linkInfo(name)
	if err != nil {
		s.fileError(w, r, err)
		return
	}
	if small, link, err := s.smallRep(r, name, lfi); err != nil {
		s.internalError(w, r, err)
		return
	} else {
		s.zsyncLink(w, r, name, lfi, link)
		s.duplicateLinks(w, name, lfi)
		if small != nil {
			s.serveRep(w, r, small)
			return
		}
	}
	f, fi, err := s.openChecked(name)
	if err != nil {
		s.fileError(w, r, err)
		return
	}
	s.small.opens.Add(1)
	defer f.Close()
	if fi.IsDir() {
		if !strings.HasSuffix(r.URL.Path, "/") {
			w.Header().Set("Location", dirLocation(name, r.URL.RawQuery))
			w.WriteHeader(http.StatusMovedPermanently)
			return
		}
		s.serveDir(w, r, name, f, fi)
		return
	}
	if !fi.Mode().IsRegular() {
		s.fileError(w, r, fs.ErrNotExist)
		return
	}
	s.keepSmall(name, f, fi)
	rep, release, err := s.selectRep(r, name, f, fi)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	defer release()
	s.serveRep(w, r, rep)
}

// selectRep builds the identity representation of a file and, when the
// type is compressible and the client accepts a coding, swaps in the
// encoded variant. The identity's sha-256 (the ETag) is computed once per
// file version; the variant's once per content.
func (s *Server) selectRep(r *http.Request, name string, f *os.File, fi fs.FileInfo) (*Representation, func(), error) {
	id, err := s.fileRep(r, name, f, fi)
	if err != nil {
		return nil, nil, err
	}
	// A streamed identity varies as the variants it stands beside do.
	id.vary = s.codable(id.Size, compressible(id.ContentType))
	if id.stream {
		return id, func() {}, nil
	}
	sum, _ := id.Digests(r.Context(), []verify.Algorithm{sha256Alg})
	if rep, release, err := s.dictionaryRep(r, name, id, sum[0].Value, f); rep != nil || err != nil {
		return rep, release, err
	}
	if !id.vary {
		return id, func() {}, nil
	}
	enc := negotiate(r.Header)
	if enc == "" {
		return id, func() {}, nil
	}
	vr, err := s.encodedVariant(r, name, id, sum[0].Value, enc, f)
	if errors.Is(err, errChangedDuringBuild) || errors.Is(err, errNotReady) {
		return id, func() {}, nil // the next request sees the new version or the variant
	}
	if err != nil {
		return nil, nil, err
	}
	return s.variantRep(r, id, vr, enc)
}

// variantRep makes the representation of the encoded variant vr (coding
// enc) of the identity id, checking its bytes have the sha-256 its name
// says; when they do not, the variant is dropped and id is returned.
func (s *Server) variantRep(r *http.Request, id *Representation, vr *variant, enc string) (*Representation, func(), error) {
	v := *id
	v.Encoding, v.Content, v.Size, v.identity = enc, vr.content, vr.size, id
	v.key, v.file, v.proof, v.used, v.reopen = fileKey{}, nil, nil, nil, nil
	// Keyed by the sha-256 of both ends: the identity's and the variant's.
	vkey := fileKey{name: vr.key + "." + hex.EncodeToString(vr.sum), id: vr.version(), enc: enc}
	v.sums = s.cache.get(vkey)
	vsum, err := v.Digests(r.Context(), []verify.Algorithm{sha256Alg})
	if err != nil {
		vr.release()
		return nil, nil, err
	}
	if !bytes.Equal(vsum[0].Value, vr.sum) {
		// The variant's bytes are not the ones its name says: drop it
		// and answer with the identity; the next request builds it anew.
		vr.release()
		s.variants.discard(vr)
		s.cache.drop(vkey)
		s.cfg.logger.Warn("variant does not match its sha-256; dropped", "path", r.URL.Path, "encoding", enc)
		return id, func() {}, nil
	}
	v.ETag = etagFor(vsum[0].Value)
	return &v, vr.release, nil
}

// contentType is the type registered for the file's extension, else what
// the first 512 bytes look like (http.DetectContentType).
func contentType(name string, f io.ReaderAt) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	var buf [512]byte
	n, _ := f.ReadAt(buf[:], 0)
	return http.DetectContentType(buf[:n])
}

// serveRep sends a selected representation with http.ServeContent, which
// evaluates If-Match, If-None-Match (304), If-Range, Range (206, multipart,
// 416). The digest fields are set around it by a bodyWriter. A request
// for a delta (A-IM) gets a 226 only when its body is smaller than rep's:
// an encoded variant (a compression, or a dictionary coding) may be.
func (s *Server) serveRep(w http.ResponseWriter, r *http.Request, rep *Representation) {
	r = s.adjustRequest(r, rep)
	if id, current := s.deltaIdentity(r, rep); current {
		rep = id
	} else if id != nil && s.serveDelta(w, r, id, rep.Size) {
		return
	}
	plan, ok := s.repHeaders(w, r, rep)
	if !ok {
		return
	}
	if s.cfg.delta != nil && s.offerDelta(w, r, rep, rep.Size) {
		return
	}
	bw := newBodyWriter(w, r, s, rep, plan)
	defer bw.close()
	if s.sendSnapshot(bw, r, rep) {
		return
	}
	var content io.ReadSeeker = rep.Content
	if f, ok := rep.Content.(*os.File); ok {
		content = newSizedFile(f, rep.Size)
	}
	g := s.newGuard(bw, r, rep)
	defer g.close()
	http.ServeContent(g, r, "", rep.ModTime, content)
	g.finish()
	bw.finish()
}

// serveDelta offers the delta step the identity id of the encoded variant
// the server selected, whose size (rival) a 226 must beat, with the
// identity's fields set. It reports whether the response was written;
// when not, the identity's fields are taken back.
func (s *Server) serveDelta(w http.ResponseWriter, r *http.Request, id *Representation, rival int64) bool {
	h := w.Header()
	saved := h.Clone()
	if _, ok := s.repHeaders(w, r, id); !ok || s.offerDelta(w, r, id, rival) {
		return true
	}
	clear(h)
	for k, v := range saved {
		h[k] = v
	}
	return false
}

// offerDelta asks the delta step to answer with rep; it reports whether
// the response was written, by the step or, for its error, by problem.
func (s *Server) offerDelta(w http.ResponseWriter, r *http.Request, rep *Representation, rival int64) bool {
	done, err := s.cfg.delta.ServeDelta(w, r, rep, rival)
	var ref *Refusal
	switch {
	case err == nil:
		return done
	case errors.As(err, &ref):
		s.problem(w, r, problem{Status: ref.Status, Detail: ref.Detail})
	default:
		s.internalError(w, r, err)
	}
	return true
}

// repHeaders sets the fields of rep's response: Content-Type, Vary, ETag,
// the digests planned, the dictionary fields. It reports false when it
// answered with an error instead.
func (s *Server) repHeaders(w http.ResponseWriter, r *http.Request, rep *Representation) (*digestPlan, bool) {
	h := w.Header()
	if sn := rep.snap; sn != nil && rep.ContentType == sn.contentType {
		h["Content-Type"] = sn.fields.contentType // made once (snapshotsend.go)
	} else {
		h.Set("Content-Type", rep.ContentType)
	}
	if rep.vary {
		h.Add("Vary", "Accept-Encoding")
	}
	if rep.ETag != "" {
		if et := s.faultETag(rep.ETag); rep.snap != nil && et == rep.ETag {
			h["Etag"] = rep.snap.etagField(et) // "Etag": the canonical key
		} else {
			h.Set("ETag", et)
		}
	}
	plan, err := s.planDigests(r, rep)
	if err != nil {
		s.internalError(w, r, err)
		return nil, false
	}
	plan.setHeaders(h)
	s.dictionaryFields(r, h, rep, plan)
	if err := s.setUnencoded(w, r, rep, plan); err != nil {
		s.internalError(w, r, err)
		return nil, false
	}
	return plan, true
}

// adjustRequest applies what changes the request before ServeContent sees
// it: WithIgnoreRange drops Range, a multi-range request on an encoded
// variant is answered in full (200), because multipart/byteranges has no
// place for a Content-Encoding that applies to the parts only, and so is
// a range under an If-Range date (ifRangeDate). A Range of another unit
// than bytes is ignored (byteRanges). Zero-length suffix ranges are taken
// out (withoutEmptySuffix). A Range of more than
// maxServedRanges ranges is answered in full too.
func (s *Server) adjustRequest(r *http.Request, rep *Representation) *http.Request {
	rg := r.Header.Get("Range")
	if rg == "" {
		return r
	}
	v, isBytes := byteRanges(rg)
	if !isBytes || s.cfg.faults.ignoreRange || rep.Encoding != "" && strings.Contains(v, ",") || ifRangeDate(r) ||
		strings.Count(v, ",") >= maxServedRanges {
		return withoutRange(r)
	}
	if e, ok := withoutEmptySuffix(v, rep.Size); ok {
		v = e
	}
	if v != rg {
		r = r.Clone(r.Context())
		r.Header.Set("Range", v)
	}
	return r
}

// byteRanges returns a Range value with its unit spelt as
// http.ServeContent reads it, "bytes=": range units are compared
// case-insensitively (RFC 9110 §14.1), so "BYTES=0-1" is a byte range,
// which ServeContent would refuse with 416. isBytes is false for a value
// of another unit or of none, which the server ignores (§14.2: a unit it
// does not understand MUST be ignored), sending the whole representation,
// as nginx does.
func byteRanges(rg string) (v string, isBytes bool) {
	unit, set, found := strings.Cut(rg, "=")
	if !found || !strings.EqualFold(unit, "bytes") {
		return "", false
	}
	if unit == "bytes" {
		return rg, true
	}
	return "bytes=" + set, true
}

// maxServedRanges is the most ranges one request is answered with, as
// Apache's MaxRanges default: each part costs a part header, so thousands
// of one-byte ranges would make a response many times the file's size.
// RFC 9110 §14.2 lets a server ignore such a Range; the representation is
// then sent whole. zsync asks for at most 20 a request, hdig get for 16
// (zsync) or 64 (-r).
const maxServedRanges = 200

// withoutEmptySuffix drops from a Range value the suffix ranges of length
// 0 ("-0"), which are not satisfiable (RFC 9110 §14.1.1) but which
// http.ServeContent answers with a 206 of no bytes and the Content-Range
// "bytes N-(N-1)/N", which no client parses and over which no digest is
// right. When none is left, the value is "bytes=N-", unsatisfiable too,
// which ServeContent answers 416. ok is false when rg has no such range.
func withoutEmptySuffix(rg string, size int64) (v string, ok bool) {
	specs, found := strings.CutPrefix(rg, "bytes=")
	if !found || !strings.Contains(specs, "-0") {
		return "", false
	}
	var kept []string
	for _, spec := range strings.Split(specs, ",") {
		spec = strings.TrimSpace(spec)
		if n, isSuffix := strings.CutPrefix(spec, "-"); isSuffix && n != "" && strings.Trim(n, "0") == "" {
			ok = true
			continue
		}
		kept = append(kept, spec)
	}
	if !ok {
		return "", false
	}
	if len(kept) == 0 {
		return "bytes=" + strconv.FormatInt(size, 10) + "-", true
	}
	return "bytes=" + strings.Join(kept, ","), true
}

// ifRangeDate reports whether r's If-Range holds a date rather than an
// entity tag. A file's modification time is no strong validator (RFC 9110
// §8.8.2.2): an in-place write with the time put back, cp -p or rsync -t
// change the bytes and keep it, so http.ServeContent, which matches the
// date to the second, would send a range of the new bytes to complete the
// old ones. Such a date never matches: the whole representation is sent,
// as RFC 9110 §13.1.5 has it for a validator that does not match.
func ifRangeDate(r *http.Request) bool {
	v := strings.TrimSpace(r.Header.Get("If-Range"))
	return v != "" && !strings.HasPrefix(v, `"`) && !strings.HasPrefix(v, `W/"`)
}

// withoutRange is r without its Range field.
func withoutRange(r *http.Request) *http.Request {
	r = r.Clone(r.Context())
	r.Header.Del("Range")
	return r
}
