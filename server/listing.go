package server

import (
	"bytes"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/hdig/hdig/verify"
)

// serveDir answers a directory URL (ending in "/"): its index.html if
// there is one, else a generated HTML listing that omits dotfiles. The
// listing is a representation like any other: strong ETag and Repr-Digest
// over its bytes, ranges and conditional requests.
func (s *Server) serveDir(w http.ResponseWriter, r *http.Request, name string, d *os.File, fi fs.FileInfo) {
	index := path.Join(name, "index.html")
	if f, ifi, err := s.openFile(index); err == nil {
		defer f.Close()
		if ifi.Mode().IsRegular() {
			rep, release, err := s.selectRep(r, index, f, ifi)
			if err != nil {
				s.internalError(w, r, err)
				return
			}
			defer release()
			s.serveRep(w, r, rep)
			return
		}
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	body := listing(r.URL.Path, refBase(r), s.visible(name, entries))
	rep := &Representation{
		Path: r.URL.Path, File: name, ContentType: "text/html; charset=utf-8",
		Size: int64(len(body)), ModTime: fi.ModTime(), Content: bytes.NewReader(body),
		sums: newEntry(),
	}
	sum, err := rep.Digests(r.Context(), []verify.Algorithm{sha256Alg})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	rep.ETag = etagFor(sum[0].Value)
	s.serveRep(w, r, rep)
}

// visible leaves out of a listing the entries a request for them would be
// refused: symlinks whose targets are refused or missing, and state
// directories.
func (s *Server) visible(dir string, entries []os.DirEntry) []os.DirEntry {
	out := entries[:0]
	for _, e := range entries {
		if e.Type()&(fs.ModeSymlink|fs.ModeDir) != 0 {
			p := path.Join(dir, e.Name())
			if s.checkLinks(p) != nil {
				continue
			}
			if _, err := s.root.Stat(p); err != nil {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// listing renders the entries of the directory at urlPath, dotfiles left
// out, directories first, each linked by a reference from base (refBase).
func listing(urlPath, base string, entries []os.DirEntry) []byte {
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].IsDir() != entries[j].IsDir() {
			return entries[i].IsDir()
		}
		return entries[i].Name() < entries[j].Name()
	})
	var b bytes.Buffer
	title := html.EscapeString(urlPath)
	fmt.Fprintf(&b, "<!doctype html>\n<meta charset=\"utf-8\">\n<title>Index of %s</title>\n<h1>Index of %s</h1>\n<ul>\n", title, title)
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(reference(base, n)), html.EscapeString(n))
	}
	b.WriteString("</ul>\n")
	return b.Bytes()
}
