//go:build !linux

package server

// lowPriority does nothing where threads have no priority of their own.
func lowPriority() {}
