//go:build darwin || freebsd || netbsd

package fileid

import (
	"io/fs"
	"syscall"
)

func sys(fi fs.FileInfo) (ctime int64, dev, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	return int64(st.Ctimespec.Sec)*1e9 + int64(st.Ctimespec.Nsec), uint64(st.Dev), uint64(st.Ino)
}
