package server

import (
	"errors"
	"io/fs"
	"net/http"

	"github.com/hdig/hdig/fileid"
)

// lockTries is how many times lockTarget hashes the target before the
// write lock, when another upload replaces it each time meanwhile.
const lockTries = 3

// lockTarget takes the write lock (Server.writeMu) for an upload to
// target and returns, under it, the target's Lstat-free Stat info (nil
// when there is none) and, when the request has If-Match or
// If-None-Match, its ETag. The ETag is found before the lock is taken,
// so that no upload waits while another's target is hashed, and is used
// when the file under the lock is still the one hashed (its device,
// inode, size and times); when another upload replaced it meanwhile, it
// is found again, and after lockTries under the lock. The lock is held
// on return, whatever err.
func (s *Server) lockTarget(r *http.Request, target string) (fs.FileInfo, string, error) {
	for try := 1; ; try++ {
		var etag string
		var id fileid.ID // zero when not hashed: never Same
		if try <= lockTries && r.Method == http.MethodPut && etagConditional(r) {
			etag, id, _ = s.targetETag(r, target) // an error: found again under the lock
		}
		s.writeMu.Lock()
		if lockedHook != nil {
			lockedHook()
		}
		fi, serr := s.root.Stat(target)
		if serr != nil {
			return nil, "", nil // no file, no ETag
		}
		if r.Method != http.MethodPut || !etagConditional(r) || fi.IsDir() {
			return fi, "", nil
		}
		if fileid.Same(id, fileid.Of(fi)) {
			return fi, etag, nil
		}
		if try >= lockTries {
			etag, _, err := s.targetETag(r, target)
			return fi, etag, err
		}
		s.writeMu.Unlock()
	}
}

// etagConditional says a write's preconditions need the target's ETag.
func etagConditional(r *http.Request) bool {
	return len(r.Header.Values("If-Match")) > 0 || len(r.Header.Values("If-None-Match")) > 0
}

// targetETag returns the ETag of the file name and its file ID; "" and
// the zero ID when it does not exist.
func (s *Server) targetETag(r *http.Request, name string) (string, fileid.ID, error) {
	f, fi, err := s.openFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fileid.ID{}, nil
	}
	if err != nil {
		return "", fileid.ID{}, err
	}
	defer f.Close()
	rep, err := s.fileRep(r, name, f, fi)
	if err != nil {
		return "", fileid.ID{}, err
	}
	return rep.ETag, fileid.Of(fi), nil
}

// identityRep opens the identity representation of a stored file.
func (s *Server) identityRep(r *http.Request, name string) (*Representation, func(), error) {
	f, fi, err := s.openFile(name)
	if err != nil {
		return nil, nil, err
	}
	rep, err := s.fileRep(r, name, f, fi)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return rep, func() { f.Close() }, nil
}
