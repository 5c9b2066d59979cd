package server

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"time"

	"github.com/hdig/hdig/fileid"
)

// defaultSettle is how old a file's change time must be before digests
// hashed from it are trusted by its ID alone. A write in the same tick of
// the file system's clock as the last change, or a file system whose times
// lag an open writer, leaves the ID as it was; past this age a write gives
// a new change time. Younger files are served with a check of the bytes.
const defaultSettle = 2 * time.Second

// settled reports whether id can vouch for the bytes at time now: it is
// strong (has a change time and an inode) and its change time is older
// than the settle window.
func settled(id fileid.ID, now time.Time, window time.Duration) bool {
	return id.Strong() && now.Sub(time.Unix(0, id.CTime)) > window
}

// fileRep builds the identity representation of the open file f (name
// inside the root) and computes its ETag. Its digests are cached under the
// file's ID; a hash pass is trusted only when the ID was settled before it
// and unchanged after it.
func (s *Server) fileRep(r *http.Request, name string, f *os.File, fi fs.FileInfo) (*Representation, error) {
	id := fileid.Of(fi)
	rep := &Representation{
		Path: r.URL.Path, File: name, ContentType: contentType(name, f),
		Size: fi.Size(), ModTime: fi.ModTime(), Content: f,
		key: fileKey{name: name, id: id}, file: f,
		proof: &proof{
			settled:   settled(id, time.Now(), s.cfg.settle),
			same:      func() bool { return sameFile(f, id) },
			streamed:  plainGet(r),
			unchecked: answeredOnDigests(r),
		},
	}
	rep.sums = s.cache.get(rep.key)
	rep.proof.since = rep.sums.passes.Load() // passes begun from now on are new enough for it
	s.index.seed(rep.key, rep.sums)
	rep.reopen = func() (*os.File, error) { return s.reopenVersion(name, id) }
	if s.streamable(r, rep) {
		rep.stream = true // stream.go: no ETag, digests as trailers
		return rep, nil
	}
	sum, err := rep.Digests(r.Context(), defaultAlgs)
	if err != nil {
		return nil, err
	}
	rep.ETag = etagFor(sum[0].Value)
	if rep.trusted {
		s.index.add(name, id, sum[0].Value)
	}
	return rep, nil
}

// reopenVersion opens name again; it fails when the file is no longer
// version id.
func (s *Server) reopenVersion(name string, id fileid.ID) (*os.File, error) {
	g, err := s.root.Open(name)
	if err != nil {
		return nil, err
	}
	if id.Strong() && !sameFile(g, id) {
		g.Close()
		return nil, fmt.Errorf("%s changed since it was opened", name)
	}
	return g, nil
}

// sameFile reports whether the open file still has the ID id.
func sameFile(f *os.File, id fileid.ID) bool {
	now, err := fileid.File(f)
	return err == nil && fileid.Same(id, now)
}

// plainGet reports whether r will be answered with the whole file (200):
// a GET without Range, preconditions or A-IM.
func plainGet(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	for _, k := range plainGetFields {
		if v := r.Header[k]; len(v) > 0 && v[0] != "" { // r.Header.Get(k) != ""
			return false
		}
	}
	return true
}

// answeredOnDigests reports whether r may be answered on its digests with
// no body sent over which the guard checks them: a HEAD, a write (its
// If-Match), a request whose If-None-Match or If-Match may give a 304 or
// a 412.
func answeredOnDigests(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return true
	}
	for _, k := range []string{"If-Match", "If-None-Match"} {
		if v := r.Header[k]; len(v) > 0 && v[0] != "" {
			return true
		}
	}
	return false
}

// plainGetFields are the request fields that make a GET not plain, in
// their canonical form (textproto.CanonicalMIMEHeaderKey), as net/http
// stores them: looked up as they are, without canonicalising each time.
var plainGetFields = []string{"Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "A-Im"}
