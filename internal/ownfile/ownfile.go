// Package ownfile opens files and judges directories that must be the
// user's own: a part or sidecar hdig left beside an output, a server's
// state, a cache. A symbolic link at such a name is not followed, a FIFO
// there does not block the open, and a file someone else owns, or one
// with a second name (a hard link to another file), is not taken for
// hdig's own. The one rule for every such file.
package ownfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hdig/hdig/internal/smallfile"
)

// ErrNotOwn is the error (errors.Is) of an open refused because the file
// at the name is not one hdig could have left (Why says which rule): a
// symbolic link, a FIFO, someone else's file, a second name of another.
// The name holds something; what hdig keeps there is not it.
var ErrNotOwn = errors.New("not a file hdig could have left")

// notOwn is ErrNotOwn with Why's reason as its text.
type notOwn struct{ why string }

func (e notOwn) Error() string      { return e.why }
func (notOwn) Is(target error) bool { return target == ErrNotOwn }

// Own says fi is a file hdig could have left: a regular file with one
// name (a hard link would have a write go to another file too), the
// user's own. Someone else's, put first in a shared directory, would
// have hdig keep or trust their bytes.
func Own(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && links(fi) <= 1 && ownedByUser(fi)
}

// Why says why fi is not a file hdig left (Own).
func Why(fi fs.FileInfo) string {
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("not a regular file (%s)", fi.Mode().Type())
	case links(fi) > 1:
		return fmt.Sprintf("a file with %d links, not one of its own", links(fi))
	case !ownedByUser(fi):
		return "a file someone else owns"
	}
	return "a file of its own"
}

// OpenRegular opens with flag (os.O_RDONLY, os.O_WRONLY|os.O_APPEND, …;
// no O_CREATE) the regular file at path as that very file: no symbolic
// link at its name is followed and a FIFO there does not block the open
// (it is refused, as any file not regular).
func OpenRegular(path string, flag int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|noFollow, 0)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, nil, notOwn{Why(fi)}
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = notOwn{Why(fi)}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Open is OpenRegular for a file that must be one hdig could have left
// (Own): one name, the user's own.
func Open(path string, flag int) (*os.File, error) {
	f, fi, err := OpenRegular(path, flag)
	if err == nil && !Own(fi) {
		f.Close()
		return nil, notOwn{Why(fi)}
	}
	return f, err
}

// Read reads the small file at path if it is one hdig could have left,
// opened by Open. At most max bytes are read (smallfile.ErrTooLarge
// beyond).
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = smallfile.ErrTooLarge
	}
	return b, err
}

// MkdirAll makes dir with perm if need be and checks it is the user's
// alone to write (Dir). A symbolic link at dir is followed: the user
// named it.
func MkdirAll(dir string, perm fs.FileMode) error {
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	return Dir(dir, fi)
}

// Mkdir makes dir, a directory hdig keeps inside one of its own, with
// perm if need be and checks it is the user's alone to write (Dir); a
// symbolic link at its name is not followed but refused.
func Mkdir(dir string, perm fs.FileMode) error {
	if err := os.Mkdir(dir, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	return Dir(dir, fi)
}
