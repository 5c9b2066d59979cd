package fetch

import (
	"path/filepath"
	"regexp"
)

// procFD is the directory of a process's open files.
var procFD = regexp.MustCompile(`^/proc/[0-9]+(/task/[0-9]+)?/fd$`)

// fdLink says p is a link of /proc/PID/fd (what /dev/stdout, /dev/fd/N
// and /proc/self/fd/N lead to): it names an open file, not a path. Its
// text is "pipe:[123]" for a pipe and the name a file had when it was
// opened, so it is not resolved as text; opened, it opens that very file.
func fdLink(p string) bool {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	return err == nil && procFD.MatchString(dir)
}
