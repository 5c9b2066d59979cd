package nginxconf

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/zsync"
)

// orphan reports whether the control file p is one a previous run wrote
// for a file that is gone: the file no longer exists, the previous include
// listed it with p's very identity (so p is unchanged since), and p names
// the file as Index writes it (Filename: its name, URL: relative to it).
// A control file the user made (another URL) or edited, or one no include
// listed, is never removed.
func orphan(root, p string, o Options) bool {
	file := strings.TrimSuffix(p, ControlSuffix)
	if _, err := os.Lstat(file); !errors.Is(err, os.ErrNotExist) {
		return false
	}
	old, ok := o.Old[uriOf(root, file)]
	if !ok || old.Zsync.IsZero() {
		return false
	}
	f, err := openRegular(p)
	if err != nil {
		return false
	}
	defer f.Close()
	id, err := fileid.File(f)
	if err != nil || !id.Strong() || !fileid.Same(old.Zsync, id) {
		return false
	}
	ctl, err := zsync.Read(f)
	if err != nil {
		return false
	}
	base := filepath.Base(file)
	return ctl.Filename == base && slices.Equal(ctl.URLs, []string{relativeRef(base)})
}
