//go:build !unix

package nginxconf

// openNonblock: plain opens here.
const openNonblock = 0
