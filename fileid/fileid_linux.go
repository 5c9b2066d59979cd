//go:build linux

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
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec, uint64(st.Dev), uint64(st.Ino)
}
