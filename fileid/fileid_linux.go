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
	return int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec), uint64(st.Dev), uint64(st.Ino) // 32-bit fields on 386 and arm
}
