package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/zsync"
)

// zsync: every served file FILE has a control file FILE.zsync (made on the
// first request for each version of FILE, then cached) unless a real
// FILE.zsync exists, and FILE's responses point at it with
// Link: <FILE.zsync>; rel="describedby"; type="application/x-zsync".

const (
	zsyncSuffix     = ".zsync"
	zsyncType       = "application/x-zsync"
	zsyncCacheFiles = 64       // control files kept
	zsyncCacheBytes = 64 << 20 // their total size
)

// zsyncCache holds made control files by file version, oldest out first.
type zsyncCache struct {
	mu    sync.Mutex
	files map[fileKey]control
	order []fileKey
	bytes int
}

var zsyncCaches sync.Map // *Server -> *zsyncCache, so Server needs no new field

func (s *Server) zsyncCache() *zsyncCache {
	c, _ := zsyncCaches.LoadOrStore(s, &zsyncCache{files: map[fileKey]control{}})
	return c.(*zsyncCache)
}

// control is a made control file and its ETag.
type control struct {
	body []byte
	etag string
}

func (c *zsyncCache) get(k fileKey) (control, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctl, ok := c.files[k]
	return ctl, ok
}

func (c *zsyncCache) put(k fileKey, ctl control) {
	b := ctl.body
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.files[k]; ok || len(b) > zsyncCacheBytes {
		return
	}
	for len(c.order) > 0 && (len(c.order) >= zsyncCacheFiles || c.bytes+len(b) > zsyncCacheBytes) {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.files[old].body)
		delete(c.files, old)
	}
	c.files[k] = ctl
	c.order = append(c.order, k)
	c.bytes += len(b)
}

// serveZsync is serveGet's first step. For FILE.zsync, when no such file
// exists and FILE is a regular file, it answers with FILE's control file
// and reports true.
func (s *Server) serveZsync(w http.ResponseWriter, r *http.Request, name string) bool {
	if base, ok := strings.CutSuffix(name, zsyncSuffix); ok && base != "" && !strings.HasSuffix(base, "/") {
		if _, err := s.root.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return s.serveControl(w, r, base)
		}
	}
	return false
}

// zsyncLink adds the Link to name's zsync control file when name is a
// regular file; lfi is its Lstat info, its links checked (linkInfo).
func (s *Server) zsyncLink(w http.ResponseWriter, name string, lfi fs.FileInfo) {
	if lfi == nil || strings.HasSuffix(name, zsyncSuffix) {
		return
	}
	if lfi.Mode()&fs.ModeSymlink != 0 {
		fi, err := s.root.Stat(name)
		if err != nil {
			return
		}
		lfi = fi
	}
	if lfi.Mode().IsRegular() {
		w.Header().Add("Link", fmt.Sprintf("<%s>; rel=\"describedby\"; type=%q", relativeURL(path.Base(name)+zsyncSuffix), zsyncType))
	}
}

// serveControl answers with the control file of base, if base is a file.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request, base string) bool {
	f, fi, err := s.openFile(base)
	if err != nil {
		return false // serveGet answers 404 for FILE.zsync
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return false
	}
	key := keyOf(base, fi)
	cf, ok := s.zsyncCache().get(key)
	if !ok {
		ctl, err := zsync.Make(io.NewSectionReader(f, 0, fi.Size()), fi.Size(), zsync.MakeOptions{
			Filename: path.Base(base), MTime: fi.ModTime(), URL: relativeURL(path.Base(base))})
		after, serr := fileid.File(f)
		if err != nil || serr != nil || after != fileid.Of(fi) {
			s.cfg.logger.Info("zsync control file not made", "path", r.URL.Path, "err", err)
			w.Header().Set("Retry-After", "1")
			s.problem(w, r, problem{Status: http.StatusServiceUnavailable, Detail: "the file changed while its control file was made; retry"})
			return true
		}
		var buf bytes.Buffer
		ctl.WriteTo(&buf)
		cf = control{body: buf.Bytes(), etag: fmt.Sprintf(`"zsync-%x"`, ctl.SHA1)}
		s.zsyncCache().put(key, cf)
	}
	h := w.Header()
	h.Set("Content-Type", zsyncType)
	h.Set("ETag", cf.etag)
	http.ServeContent(w, r, "", fi.ModTime(), bytes.NewReader(cf.body))
	return true
}

// relativeURL is a file name as a relative URL reference: escaped, and
// with "./" before a colon that would read as a scheme.
func relativeURL(name string) string {
	return (&url.URL{Path: name}).String()
}
