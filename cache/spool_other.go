//go:build !linux

package cache

import (
	"errors"
	"os"
)

// openAnon: only Linux has anonymous files (O_TMPFILE) that can be named
// later; elsewhere a body is spooled outside the cache and copied in.
func openAnon(*os.File) (*os.File, error) { return nil, errors.ErrUnsupported }

func linkAnon(f, d *os.File, name string) error { return errors.ErrUnsupported }

func links(os.FileInfo) uint64 { return 1 }
