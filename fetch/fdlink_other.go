//go:build !linux

package fetch

// fdLink: /dev/fd/N is a device elsewhere (written into as one), not a
// link.
func fdLink(string) bool { return false }
