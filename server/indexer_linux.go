package server

import "syscall"

// lowPriority puts the calling thread at the lowest CPU priority (nice
// 19) and in the idle I/O class: it runs when nothing else wants to.
func lowPriority() {
	tid := syscall.Gettid()
	syscall.Setpriority(syscall.PRIO_PROCESS, tid, 19)
	const ioprioWhoProcess, ioprioClassIdle, ioprioClassShift = 1, 3, 13
	syscall.Syscall(syscall.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid), ioprioClassIdle<<ioprioClassShift)
}
