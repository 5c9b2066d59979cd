//go:build unix

package cache

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ownDir says whether fi, a directory of the cache, is the user's alone
// to write: owned by the user hdig runs as, writable by neither its group
// nor others. Anyone else who can write in it could plant an index and a
// blob with the sha-256 they record: a version of a URL the origin never
// sent, which a 304 naming its entity tag would release as the body.
func ownDir(name string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%s)", name, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != uint32(os.Geteuid()) {
		return fmt.Errorf("%s belongs to another user (uid %d): a cache must be the user's own", name, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %v): a cache must be the user's own (chmod go-w)", name, fi.Mode().Perm())
	}
	return nil
}
