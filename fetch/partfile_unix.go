//go:build unix

package fetch

import (
	"io/fs"
	"syscall"
)

// fileLinks is how many names the file of fi has.
func fileLinks(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) // uint32 on some architectures
	}
	return 1
}
