package server

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"
)

// uploadDir holds the temporary files of uploads in progress, at the top
// of the served directory (a dot-directory: never served, never listed),
// so that a rename puts a verified upload in place on the same file
// system, and a server killed mid-upload leaves nothing where clients
// look: the next start removes what is there (New, cleanUploads).
const uploadDir = ".hdig-uploads"

// uploadPrefix starts every temporary upload file's name.
const uploadPrefix = ".hdig-upload-"

// uploadsAtOnce is how many uploads of --max-upload bytes may hold
// temporary disk at once. Each upload may write up to --max-upload before
// it is verified; without a bound on the total, --max-conns clients each
// holding one open (a body sent slowly, never finished) would take
// --max-conns times --max-upload of disk. The uploads in progress share
// uploadsAtOnce times --max-upload, taken as bytes arrive: one that would
// pass it (or declares a length that does not fit) is refused with 503 and
// Retry-After (errUploadSpace).
const uploadsAtOnce = 4

// errUploadSpace: the uploads in progress hold all the temporary disk
// they may.
var errUploadSpace = errors.New("the uploads in progress hold all the temporary space allowed")

// tempSpace writes an upload's temporary file, reserving from the
// server's budget (Server.uploads) each byte before it is written; the
// upload returns held when its file is gone or renamed into place.
type tempSpace struct {
	w      io.Writer
	budget *memBudget
	held   int64 // reserved
	n      int64 // written
}

// reserve holds n bytes more than are written.
func (t *tempSpace) reserve(n int64) error {
	if n <= t.held-t.n {
		return nil
	}
	more := n - (t.held - t.n)
	if !t.budget.reserve(more) {
		return errUploadSpace
	}
	t.held += more
	return nil
}

func (t *tempSpace) Write(p []byte) (int, error) {
	if err := t.reserve(int64(len(p))); err != nil {
		return 0, err
	}
	n, err := t.w.Write(p)
	t.n += int64(n)
	return n, err
}

// release returns what the upload held.
func (t *tempSpace) release() {
	t.budget.release(t.held)
	t.held = 0
}

// createUploadTemp creates a temporary file for an upload and locks it, so
// that another server starting on the same directory leaves it alone.
func (s *Server) createUploadTemp() (string, *os.File, error) {
	if err := s.root.Mkdir(uploadDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", nil, err
	}
	name := path.Join(uploadDir, uploadPrefix+randomName())
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", nil, err
	}
	if !lockFile(f) {
		f.Close()
		s.removeQuietly(name)
		return "", nil, errors.New("cannot lock the temporary upload file")
	}
	return name, f, nil
}

// cleanUploads removes the temporary files that uploads cut short by a
// crash or a kill left behind; files still locked by a running server are
// kept. It returns how many it removed.
func (s *Server) cleanUploads() int {
	d, err := s.root.Open(uploadDir)
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	removed := 0
	for _, n := range names {
		if !strings.HasPrefix(n, uploadPrefix) {
			continue
		}
		p := path.Join(uploadDir, n)
		f, err := s.root.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if lockFile(f) {
			if s.root.Remove(p) == nil {
				removed++
			}
		}
		f.Close()
	}
	return removed
}

// maxInflation bounds how far a gzip request may expand: past
// inflationFloor decoded bytes, at most maxInflation decoded bytes per
// received byte. Text compresses 3-20×; a 2 MB gzip bomb of zeros would
// otherwise write --max-upload (1 GiB) of temporary data before its 413.
const (
	maxInflation   = 64
	inflationFloor = 16 << 20
)

// inflationLimit reads decoded request content and fails with a
// MaxBytesError (413) as soon as it exceeds max or the inflation bound of
// the compressed bytes read so far (*wire).
type inflationLimit struct {
	r       io.Reader
	wire    *countingReader
	max     int64
	decoded int64
}

func (l *inflationLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.decoded += int64(n)
	if l.decoded > l.max {
		return n, &http.MaxBytesError{Limit: l.max}
	}
	if l.decoded > inflationFloor && l.decoded > maxInflation*l.wire.n {
		return n, &http.MaxBytesError{Limit: maxInflation * l.wire.n}
	}
	return n, err
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
