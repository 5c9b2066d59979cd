package server

import (
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
)

// errHidden marks a path the server refuses to expose: a dot segment, a
// dotfile, or a symlink to one. Clients see 404, as for a missing file.
var errHidden = errors.New("hidden path")

// fileName maps a URL path (already percent-decoded by net/http, and with
// its dot segments removed by removeDotSegments) to a name inside the
// served directory. It rejects, rather than cleans, any ".."
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

// removeDotSegments returns a URL path (percent-decoded) with its "."
// segments and empty ones ("//") dropped and each ".." taking the segment
// before it away, as nginx normalises a request path (RFC 3986 §5.2.4,
// merge_slashes); a path whose last segment was "." or ".." ends in "/",
// naming a directory. ok is false when a ".." would climb above the root
// (nginx answers 400; the server 404, as for any name it will not serve).
// Nothing else changes: a segment starting with a dot that is not a dot
// segment (a dotfile) is left for fileName to refuse.
func removeDotSegments(p string) (clean string, ok bool) {
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	dir := false
	for _, seg := range segs {
		dir = seg == "" || seg == "." || seg == ".."
		switch seg {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return "", false
			}
			out = out[:len(out)-1]
		default:
			out = append(out, seg)
		}
	}
	clean = "/" + strings.Join(out, "/")
	if dir && len(out) > 0 {
		clean += "/"
	}
	return clean, true
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

// refBase is the base of the references a response to r makes to the
// entries of the directory served (the zsync Link, a listing's links):
// "" when the client, resolving a relative reference against the URL it
// asked for (RFC 3986 §5), lands in that directory, as for every path in
// normal form; else the directory served as an absolute path. The path
// asked is r.RequestURI, as sent: "/sub/..%2fhello.json" is served as
// "/hello.json", but "hello.json.zsync" resolves against it to
// "/sub/hello.json.zsync"; so do "/sub/x/.." (the listing of "/sub/") and
// "/sub%2fa.txt" ("/sub/a.txt", whose client's base is "/").
func refBase(r *http.Request) string {
	dir := r.URL.Path[:strings.LastIndexByte(r.URL.Path, '/')+1]
	asked, _, _ := strings.Cut(r.RequestURI, "?")
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.Host != "" {
		asked = u.EscapedPath() // absolute-form: http://host/path
	}
	if asked == "" {
		return "" // a request made in this process, its path the one served
	}
	askedDir, err := url.PathUnescape(asked[:strings.LastIndexByte(asked, '/')+1])
	if err == nil && askedDir == dir {
		return ""
	}
	return dir
}

// reference is a URL reference to name, an entry of the directory base
// names (refBase): the name alone when base is "", else its absolute path;
// escaped.
func reference(base, name string) string {
	if base == "" {
		return relativeURL(name)
	}
	return (&url.URL{Path: base + name}).EscapedPath()
}

// relativeURL is a file name as a relative URL reference: escaped, and
// with "./" before a colon that would read as a scheme.
func relativeURL(name string) string {
	return (&url.URL{Path: name}).String()
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

// checkLinks refuses a path that resolves, through any symlinks, to a
// dotfile or through a dot directory, or into a state directory.
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

// maxLinkHops bounds the symlinks followed to resolve one path, as the
// kernel's ELOOP does (40 on Linux).
const maxLinkHops = 40

// linkInfo is checkLinks that also returns the Lstat information of the
// last component (nil for the directory itself).
func (s *Server) linkInfo(name string) (fs.FileInfo, error) {
	if name == "." {
		return nil, nil
	}
	hops := 0
	fi, _, err := s.resolve("", name, &hops)
	return fi, err
}

// resolve walks rel from dir, a real directory inside the root ("" for the
// root itself), as the kernel would: each symlink met is replaced by its
// target, resolved from the real directory of the link. Every real
// component must be visible: no dot segment (a dotfile, or a dot
// directory such as .git), no state directory. So a chain of links
// (a -> b -> .git) or a relative target that climbs out of a linked
// directory cannot reach what a direct request cannot. It returns the
// Lstat information of rel's last component and rel's real name.
func (s *Server) resolve(dir, rel string, hops *int) (fs.FileInfo, string, error) {
	var fi fs.FileInfo
	cur := dir
	for rest := rel; rest != ""; {
		// seg is rel's next segment: a substring, no copy.
		seg, after, _ := strings.Cut(rest, "/")
		rest = after
		switch {
		case seg == "" || seg == ".":
			continue
		case seg == "..":
			if cur == "" {
				return nil, "", errHidden // out of the root: os.Root refuses it too
			}
			if cur = path.Dir(cur); cur == "." {
				cur = ""
			}
			fi = nil
			continue
		case seg[0] == '.':
			return nil, "", errHidden
		}
		p := seg
		if cur != "" {
			p = cur + "/" + seg
		}
		var err error
		if fi, err = s.lstat(p); err != nil {
			return nil, "", err
		}
		if s.isPrivate(fi) {
			return nil, "", errHidden
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = p
			continue
		}
		if *hops++; *hops > maxLinkHops {
			return nil, "", errHidden
		}
		target, err := s.root.Readlink(p)
		if err != nil {
			return nil, "", err
		}
		if path.IsAbs(target) {
			return nil, "", errHidden // os.Root refuses absolute links
		}
		if _, cur, err = s.resolve(cur, target, hops); err != nil {
			return nil, "", err
		}
	}
	return fi, cur, nil
}
