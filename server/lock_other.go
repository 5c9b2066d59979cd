//go:build !unix

package server

import "os"

// lockFile: no advisory locks here; a starting server removes every
// temporary upload file, so two servers must not share a directory.
func lockFile(*os.File) bool { return true }

// openNonblock: plain opens here.
const openNonblock = 0
