//go:build unix

package ownfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// links is how many names the file of fi has.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) // uint32 on some architectures
	}
	return 1
}

// ownedByUser says the file of fi belongs to the user hdig runs as.
func ownedByUser(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Uid == uint32(os.Geteuid())
}

// noFollow opens a file without following a symbolic link at its name or
// blocking on a FIFO there.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// Dir says whether fi, the directory name, is the user's alone to write:
// owned by the user hdig runs as, writable by neither its group nor
// others. Anyone else who can write in it could plant, or replace, the
// files hdig keeps there and trusts (a cache's index and blobs, a
// server's digest index and variants).
func Dir(name string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%s)", name, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != uint32(os.Geteuid()) {
		return fmt.Errorf("%s belongs to another user (uid %d): it must be the user's own", name, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %v): it must be the user's own (chmod go-w)", name, fi.Mode().Perm())
	}
	return nil
}
