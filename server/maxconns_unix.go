//go:build unix

package server

import "syscall"

// DefaultMaxConns is the default connection cap: half the process's
// descriptor limit (each request may hold a socket and a file), less a
// reserve, between 64 and 4096.
func DefaultMaxConns() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 1024
	}
	if rl.Cur > 1<<20 {
		return 4096
	}
	return int(min(max((int64(rl.Cur)-64)/2, 64), 4096))
}
