package server

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"strings"
)

// errHidden marks a path the server refuses to expose: a dot segment, a
// dotfile, or a symlink to one. Clients see 404, as for a missing file.
var errHidden = errors.New("hidden path")

// fileName maps a URL path (already percent-decoded by net/http) to a name
// inside the served directory. It rejects, rather than cleans, any ".."
// or "." segment, any segment starting with a dot (dotfiles such as .git or
// .env, and the temporary files of uploads), NUL and backslashes, so
// "/../x", "/%2e%2e/x", "/..%2fx" and "/a/.git/config" all fail here before
// os.Root's own containment check. The directory itself is ".".
func fileName(urlPath string) (string, error) {
	if !strings.HasPrefix(urlPath, "/") || strings.ContainsAny(urlPath, "\x00\\") {
		return "", errHidden
	}
	name := strings.Trim(urlPath, "/")
	if name == "" {
		return ".", nil
	}
	for rest := name; ; {
		seg, after, more := strings.Cut(rest, "/")
		if seg == "" || seg[0] == '.' {
			return "", errHidden
		}
		if !more {
			return name, nil
		}
		rest = after
	}
}

// dirLocation is the Location of the redirect from a directory's path
// without a trailing slash to the path with one. It is built from the
// checked name, escaped, so it always starts with a single "/" followed by
// a non-slash: never "//host" or "/\\host", which browsers read as another
// host, however many slashes the request path started with.
func dirLocation(name, rawQuery string) string {
	loc := "/"
	if name != "." {
		loc = (&url.URL{Path: "/" + name + "/"}).EscapedPath()
	}
	if rawQuery != "" {
		loc += "?" + rawQuery
	}
	return loc
}

// openFile opens name inside the root and returns it with its info. The
// root refuses symlinks that leave the directory; a symlink whose target
// names a dotfile is refused here.
func (s *Server) openFile(name string) (*os.File, fs.FileInfo, error) {
	if err := s.checkLinks(name); err != nil {
		return nil, nil, err
	}
	return s.openChecked(name)
}

// openChecked is openFile for a name whose links were checked.
func (s *Server) openChecked(name string) (*os.File, fs.FileInfo, error) {
	f, err := s.root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// checkLinks refuses a path any of whose components is a symlink whose
// target text contains a dotfile segment (".." and "." excepted: os.Root
// already confines those to the directory), or is a state directory.
func (s *Server) checkLinks(name string) error {
	_, err := s.linkInfo(name)
	return err
}

// lstat is os.Root.Lstat, by a single system call for a name of one
// segment (dirLstat).
func (s *Server) lstat(name string) (fs.FileInfo, error) {
	if fi, ok, err := s.top.lstat(name); ok {
		return fi, err
	}
	s.rootLstats.Add(1)
	return s.root.Lstat(name)
}

// oneSegment reports whether name, a checked name (fileName), is a
// single segment: a file or directory at the top of the served one.
func oneSegment(name string) bool {
	// ".." is refused by fileName already; refused here too, as this is
	// what lets a name go to fstatat on DIR's descriptor.
	return name != "" && name != "." && name != ".." && strings.IndexByte(name, '/') < 0
}

// linkInfo is checkLinks that also returns the Lstat information of the
// last component (nil for the directory itself).
func (s *Server) linkInfo(name string) (fs.FileInfo, error) {
	if name == "." {
		return nil, nil
	}
	var fi fs.FileInfo
	for end := 0; end < len(name); {
		// p is name up to the end of its next segment: a prefix, no copy.
		next := strings.IndexByte(name[end+1:], '/')
		if next < 0 {
			end = len(name)
		} else {
			end += 1 + next
		}
		p := name[:end]
		var err error
		fi, err = s.lstat(p)
		if err != nil {
			return nil, err
		}
		if s.isPrivate(fi) {
			return nil, errHidden
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if dfi, err := s.root.Stat(p); err == nil && s.isPrivate(dfi) {
			return nil, errHidden
		}
		target, err := s.root.Readlink(p)
		if err != nil {
			return nil, err
		}
		for _, t := range strings.Split(target, "/") {
			if strings.HasPrefix(t, ".") && t != "." && t != ".." {
				return nil, errHidden
			}
		}
	}
	return fi, nil
}
