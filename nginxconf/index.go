// Package nginxconf makes a stock nginx a digest origin: Index walks a
// directory, writes each file's zsync control file (FILE.zsync) next to it
// and returns the Repr-Digest (sha-256, sha-512) of every file; Write turns
// them into a file to include in nginx's http {} block (a map of $uri to
// Repr-Digest and Link, and the add_header lines that send them on 200,
// 206, 304 and HEAD identity responses). A re-run reads the previous
// include and rehashes only the files whose identity (fileid) changed.
package nginxconf

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// ControlSuffix names a file's zsync control file.
const ControlSuffix = ".zsync"

// Entry is one served file: its URI (as nginx's $uri sees it: decoded,
// from the root), its identity when hashed, its Repr-Digest field value
// and, for files that have one, the identity of the control file written.
type Entry struct {
	URI    string    `json:"uri"`
	ID     fileid.ID `json:"id"`
	Digest string    `json:"digest"`
	Zsync  fileid.ID `json:"zsync,omitzero"`
	wrote  bool      // this run wrote its control file
}

// Options configure Index.
type Options struct {
	Skip   []string             // absolute paths not to index (the include file itself)
	Old    map[string]Entry     // the previous run's entries by URI (ReadState)
	Warnf  func(string, ...any) // names refused, files unreadable
	Hashed func(uri string)     // called for every file actually read (tests count work)
}

// Stats say what a run did.
type Stats struct {
	Files, Hashed, Controls, Refused int
	Removed                          int // control files of files gone
}

// Index walks dir and returns its entries sorted by URI. Files whose name
// cannot be put in an nginx map safely are left out with a warning.
func Index(dir string, o Options) ([]Entry, Stats, error) {
	var st Stats
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, st, err
	}
	paths, refused, err := walk(root, o)
	st.Refused = refused
	if err != nil {
		return nil, st, err
	}
	// Control files first: they are served files too and get digests.
	have := map[string]bool{}
	for _, p := range paths {
		have[p] = true
	}
	var entries []Entry
	add := func(p string) (Entry, bool) { // indexes p and counts it, or warns
		e, made, err := index(root, p, o)
		if err != nil {
			o.warnf("%s: %v (left out)", p, err)
			return e, false
		}
		st.Files++
		if made {
			st.Hashed++
		}
		return e, true
	}
	for _, p := range paths {
		if strings.HasSuffix(p, ControlSuffix) {
			continue
		}
		e, ok := add(p)
		if !ok {
			continue
		}
		if e.wrote {
			st.Controls++
		}
		entries = append(entries, e)
		have[p+ControlSuffix] = true
	}
	for p := range have {
		if !strings.HasSuffix(p, ControlSuffix) {
			continue
		}
		if orphan(root, p, o) {
			if err := os.Remove(p); err != nil {
				o.warnf("%s: %v", p, err)
			} else {
				st.Removed++
				continue
			}
		}
		if e, ok := add(p); ok {
			entries = append(entries, e)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].URI < entries[j].URI })
	return entries, st, nil
}

func (o Options) warnf(f string, a ...any) {
	if o.Warnf != nil {
		o.Warnf(f, a...)
	}
}

// walk lists the regular files under root (symbolic links to regular
// files included, as nginx follows them) whose URI can be expressed, and
// how many were refused.
func walk(root string, o Options) ([]string, int, error) {
	skip := map[string]bool{}
	for _, s := range o.Skip {
		skip[s] = true
	}
	var paths []string
	refused := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			o.warnf("%v (left out)", err)
			return nil
		}
		if d.IsDir() || skip[p] || strings.Contains(d.Name(), ".hdig-tmp") {
			return nil
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		if why := Refuse(uriOf(root, p)); why != "" {
			o.warnf("%s: %s; left out of the map", p, why)
			refused++
			return nil
		}
		paths = append(paths, p)
		return nil
	})
	return paths, refused, err
}

func uriOf(root, p string) string {
	rel, _ := filepath.Rel(root, p)
	return "/" + filepath.ToSlash(rel)
}

// index returns p's entry, reusing the previous run's when the file (and
// its control file) are the very versions hashed then. made reports that
// the file was read.
func index(root, p string, o Options) (Entry, bool, error) {
	uri := uriOf(root, p)
	id, err := fileid.Stat(p)
	if err != nil {
		return Entry{}, false, err
	}
	control := !strings.HasSuffix(p, ControlSuffix)
	if old, ok := o.Old[uri]; ok && old.Digest != "" && id.Strong() && fileid.Same(old.ID, id) {
		if !control {
			return old, false, nil
		}
		if zid, err := fileid.Stat(p + ControlSuffix); err == nil && fileid.Same(old.Zsync, zid) {
			return old, false, nil
		}
	}
	if o.Hashed != nil {
		o.Hashed(uri)
	}
	e, err := hash(p, control)
	if err != nil {
		return Entry{}, false, err
	}
	e.URI = uri
	return e, true, nil
}

// hash reads p once: its sha-256 and sha-512 and, when control, its zsync
// control file, written atomically to p.zsync.
func hash(p string, control bool) (Entry, error) {
	f, err := openRegular(p)
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	id, err := fileid.File(f)
	if err != nil {
		return Entry{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		return Entry{}, err
	}
	h := verify.NewHasher(algorithms())
	defer h.Close()
	var in io.Reader = f
	if wrapRead != nil {
		in = wrapRead(p, f)
	}
	r := io.TeeReader(bufio.NewReaderSize(in, 1<<20), h)
	e := Entry{ID: id}
	var ctl *zsync.Control
	if control {
		base := filepath.Base(p)
		if ctl, err = zsync.Make(r, id.Size, zsync.MakeOptions{Filename: base, URL: relativeRef(base), MTime: fi.ModTime()}); err != nil {
			return Entry{}, err
		}
	} else if _, err := io.Copy(io.Discard, r); err != nil {
		return Entry{}, err
	}
	if h.Written() != id.Size {
		return Entry{}, fmt.Errorf("changed while read: want %d bytes, got %d", id.Size, h.Written())
	}
	after, err := fileid.File(f)
	if err != nil {
		return Entry{}, err
	}
	if !fileid.Same(id, after) {
		return Entry{}, fmt.Errorf("changed while read")
	}
	// Only now, the bytes read being one version of the file, may its
	// control file replace the one there.
	if ctl != nil {
		if e.Zsync, e.wrote, err = keepOrWriteControl(p+ControlSuffix, ctl); err != nil {
			return Entry{}, err
		}
	}
	e.Digest = verify.FormatDigests(h.Sums())
	return e, nil
}

// wrapRead, when set (tests), wraps the reading of p.
var wrapRead func(p string, r io.Reader) io.Reader

func algorithms() []verify.Algorithm {
	var algs []verify.Algorithm
	for _, k := range []string{"sha-256", "sha-512"} {
		a, _ := verify.Lookup(k)
		algs = append(algs, a)
	}
	return algs
}

// keepOrWriteControl keeps a control file that still describes the file
// (same Length and SHA-1: one the user made with zsyncmake -u URL, say)
// and writes ctl in place of any other. Only a regular file is read, as
// walk reads only those: a FIFO there would block the open for ever.
func keepOrWriteControl(name string, ctl *zsync.Control) (id fileid.ID, wrote bool, err error) {
	if id, ok := current(name, ctl); ok {
		return id, false, nil
	}
	id, err = writeControl(name, ctl)
	return id, err == nil, err
}

// current says the regular file at name is a control file of ctl's file,
// and gives its identity.
func current(name string, ctl *zsync.Control) (fileid.ID, bool) {
	f, err := openRegular(name)
	if err != nil {
		return fileid.ID{}, false
	}
	defer f.Close()
	id, _ := fileid.File(f)
	old, err := zsync.Read(f)
	return id, err == nil && old.Length == ctl.Length && old.SHA1 == ctl.SHA1 && !id.IsZero()
}

// writeControl writes ctl to name through a temporary file and returns
// the identity of the file written.
func writeControl(name string, ctl *zsync.Control) (fileid.ID, error) {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".hdig-tmp*")
	if err != nil {
		return fileid.ID{}, err
	}
	defer os.Remove(tmp.Name())
	if _, err := ctl.WriteTo(tmp); err != nil {
		tmp.Close()
		return fileid.ID{}, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fileid.ID{}, err
	}
	if err := tmp.Close(); err != nil {
		return fileid.ID{}, err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fileid.ID{}, err
	}
	return fileid.Stat(name)
}

// openRegular opens p for reading when it is a regular file, judged on
// what was opened: a FIFO swapped in after the walk's check is neither
// waited for (openNonblock) nor read.
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	return f, nil
}
