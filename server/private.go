package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hdig/hdig/fileid"
)

// CheckStateDir refuses a state directory inside the served directory dir
// (or equal to it), after resolving symbolic links on both sides: what is
// kept there (earlier versions, encoded variants) must never be served, nor
// replaced by an upload. The state directory need not exist yet.
func CheckStateDir(dir, stateDir string) error {
	rdir, err := resolve(dir)
	if err != nil {
		return err
	}
	rstate, err := resolve(stateDir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(rdir, rstate)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("state directory %s is inside the served directory %s; choose one outside it", stateDir, dir)
	}
	return nil
}

// resolve returns the absolute path of p with symbolic links resolved, as
// far as p exists; the missing rest is appended as given.
func resolve(p string) (string, error) {
	cur, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(cur)
		if !errors.Is(err, fs.ErrNotExist) || parent == cur {
			return "", err
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// StateDirer is implemented by a DeltaHandler that keeps files of its own
// (server/delta's history): the server refuses to start when that
// directory is inside the served one, and never serves it.
type StateDirer interface {
	StateDir() string
}

// privateDirs lists the directories the server must never expose.
func (c *config) privateDirs() []string {
	var dirs []string
	if c.stateDir != "" {
		dirs = append(dirs, c.stateDir)
	}
	if sd, ok := c.delta.(StateDirer); ok && sd.StateDir() != "" {
		dirs = append(dirs, sd.StateDir())
	}
	return dirs
}

// checkPrivate refuses private directories inside dir.
func checkPrivate(dir string, c *config) error {
	for _, p := range c.privateDirs() {
		if err := CheckStateDir(dir, p); err != nil {
			return err
		}
	}
	return nil
}

// privateIDs records the device and inode of each private directory, so
// that the handler refuses them should they appear inside the served
// directory all the same (a bind mount).
func privateIDs(c *config) []fileid.ID {
	var ids []fileid.ID
	for _, p := range c.privateDirs() {
		if fi, err := os.Stat(p); err == nil {
			ids = append(ids, fileid.Of(fi))
		}
	}
	return ids
}

// isPrivate reports whether fi is one of the private directories.
func (s *Server) isPrivate(fi fs.FileInfo) bool {
	if !fi.IsDir() || len(s.private) == 0 {
		return false
	}
	id := fileid.Of(fi)
	for _, p := range s.private {
		if p.Ino != 0 && p.Ino == id.Ino && p.Dev == id.Dev {
			return true
		}
	}
	return false
}
