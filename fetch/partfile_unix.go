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
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	dir, err := os.Stat(filepath.Dir(link))
	if err != nil {
		return err
	}
	ds, ok := dir.Sys().(*syscall.Stat_t)
	if !ok || dir.Mode()&fs.ModeSticky == 0 || dir.Mode().Perm()&0o002 == 0 {
		return nil
	}
	if st.Uid == uint32(os.Geteuid()) || st.Uid == ds.Uid {
		return nil
	}
	return fmt.Errorf("%s: a symbolic link someone else made in a shared (sticky, world-writable) directory: not followed", link)
}
