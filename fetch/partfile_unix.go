//go:build unix

package fetch

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// linkFollowable refuses what the kernel's fs.protected_symlinks refuses
// an open(2): following a symbolic link in a sticky, world-writable
// directory (/tmp) that belongs neither to the user nor to the
// directory's owner. followLinks reads links itself, so without this an
// -o /tmp/out someone else planted as a link would have hdig replace the
// file it points to, where curl gets EACCES.
func linkFollowable(link string, fi fs.FileInfo) error {
	if foreign, err := sharedForeign(link, fi); err != nil || !foreign {
		return err
	}
	return fmt.Errorf("%s: a symbolic link someone else made in a shared (sticky, world-writable) directory: not followed", link)
}

// fifoWritable refuses what fs.protected_fifos refuses curl's open(2)
// with O_CREAT: writing into a FIFO that someone else made in a shared
// directory. hdig opens an existing FIFO without O_CREAT (it must not
// make a file there), which the kernel lets through: the body of -o, or
// the cookies of -c, would go to whoever reads it.
func fifoWritable(name string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		return nil
	}
	if foreign, err := sharedForeign(name, fi); err != nil || !foreign {
		return err
	}
	return fmt.Errorf("%s: a FIFO someone else made in a shared (sticky, world-writable) directory: not written into", name)
}

// sharedForeign says name (fi, its Lstat) is in a sticky, world-writable
// directory and belongs neither to the user nor to the directory's owner.
func sharedForeign(name string, fi fs.FileInfo) (bool, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false, nil
	}
	dir, err := os.Stat(filepath.Dir(name))
	if err != nil {
		return false, err
	}
	ds, ok := dir.Sys().(*syscall.Stat_t)
	if !ok || dir.Mode()&fs.ModeSticky == 0 || dir.Mode().Perm()&0o002 == 0 {
		return false, nil
	}
	return st.Uid != uint32(os.Geteuid()) && st.Uid != ds.Uid, nil
}
