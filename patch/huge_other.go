//go:build !linux

package patch

// adviseHuge does nothing where transparent huge pages are unknown.
func adviseHuge([]byte) {}
