package fetch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hdig/hdig/internal/smallfile"
)

// newFileMode is the mode of an output that replaces no file (less the
// umask).
const newFileMode fs.FileMode = 0o644

// PartMode is the mode of a file that replaces target: the permissions of
// the regular file at target (a private file stays private), with its
// owner's read and write (a part is reopened to resume it, -C and zsync,
// which a 0444 part would refuse to its owner), and keep says target's
// were taken; else newFileMode. The one rule for every file renamed onto
// an output.
func PartMode(target string) (mode fs.FileMode, keep bool) {
	if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
		return fi.Mode().Perm() | 0o600, true
	}
	return newFileMode, false
}

// CreatePart creates part afresh for bytes to be renamed onto target once
// verified. Whatever is at part's name already (a stale part, or a symbolic
// or hard link someone put in a shared directory) is unlinked, never
// written through, and the new file is made with O_EXCL: unverified bytes
// land in no file but hdig's own. It has the permissions of the regular
// file at target, which it will replace (PartMode).
func CreatePart(part, target string) (*os.File, error) {
	mode, keep := PartMode(target)
	return createPart(part, mode, keep)
}

// CreateScratchPart is CreatePart for bytes to be renamed onto scratch, a
// name of hdig's own (-J's hidden file, ClearScratch): whatever is at
// scratch is neither followed nor lends its mode; the file is made as new
// (newFileMode).
func CreateScratchPart(part string) (*os.File, error) {
	return createPart(part, newFileMode, false)
}

// createPart creates part afresh with mode, set past the umask when keep.
func createPart(part string, mode fs.FileMode, keep bool) (*os.File, error) {
	for range 3 {
		if err := os.Remove(part); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue // put back between the two calls
		}
		if err != nil {
			return nil, err
		}
		if keep {
			if err := f.Chmod(mode); err != nil { // the umask took bits the old file had
				f.Close()
				os.Remove(part)
				return nil, err
			}
		}
		return f, nil
	}
	return nil, fmt.Errorf("%s: something keeps creating it", part)
}

// ClearScratch readies path, a name of hdig's own beside an output (-J's
// hidden file), to be written by rename as a new name: whatever is there
// that hdig could not have left (resumablePart: a symbolic link, a FIFO,
// someone else's file put in a shared directory) is unlinked, never
// followed, written into, nor its mode taken (PartMode).
func ClearScratch(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && resumablePart(fi)) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %s, not hdig's own: %w", path, notOwn(fi), err)
	}
	return nil
}

// OpenPart opens an existing part to resume (-C): only a regular file
// with a single name, opened as the very file looked at, so a link put at
// its name is not written through.
func OpenPart(part string) (*os.File, error) {
	before, err := os.Lstat(part)
	if err != nil {
		return nil, err
	}
	if !resumablePart(before) {
		return nil, fmt.Errorf("%s: %s: not resumed", part, notOwn(before))
	}
	f, err := os.OpenFile(part, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("%s was replaced while it was opened", part)
	}
	return f, nil
}

// resumablePart says fi is a part (or sidecar) hdig could have left: a
// regular file with one name (a hard link would make -C append to another
// file too), the user's own. Someone else's, put first in a shared
// directory, would have -C keep their bytes, and a sidecar of theirs vouch
// for them with the digest it records.
func resumablePart(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && fileLinks(fi) <= 1 && ownedByUser(fi)
}

// notOwn says why fi is not a part or sidecar hdig left (resumablePart).
func notOwn(fi fs.FileInfo) string {
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("not a regular file (%s)", fi.Mode().Type())
	case fileLinks(fi) > 1:
		return fmt.Sprintf("a file with %d links, not one of its own", fileLinks(fi))
	case !ownedByUser(fi):
		return "a file someone else owns"
	}
	return "a file of its own"
}

// openRegular opens for reading the regular file at path as that very
// file: no symbolic link at its name is followed and a FIFO there does not
// block the open (it is refused, as any file not regular).
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openOwnFlags, 0)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, nil, errors.New(notOwn(fi))
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New(notOwn(fi))
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// openOwn is openRegular for a file that must be one hdig could have left
// (resumablePart): one name, the user's own.
func openOwn(path string) (*os.File, error) {
	f, fi, err := openRegular(path)
	if err == nil && !resumablePart(fi) {
		f.Close()
		return nil, errors.New(notOwn(fi))
	}
	return f, err
}

// readOwn reads the small file at path if it is one hdig could have left,
// opened by openOwn. At most max bytes are read (smallfile.ErrTooLarge
// beyond).
func readOwn(path string, max int64) ([]byte, error) {
	f, err := openOwn(path)
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

// ReplaceFile replaces path with b through path.tmp, made by CreatePart:
// a sidecar written beside a part in a shared directory writes through no
// link either.
func ReplaceFile(path string, b []byte) error {
	f, err := CreatePart(path+".tmp", path)
	if err != nil {
		return err
	}
	return writeRename(f, path, b)
}

// WritePrivate replaces path with b through a new temporary file of mode
// 0600 beside it, as curl writes its cookie jar: the old file's mode is
// not kept, a link at path is replaced rather than written through, and a
// failed write leaves path as it was. What path names that is not a
// regular file (-c /dev/null, a FIFO; a link to one) is written into, as
// curl's Curl_fopen does: a rename would replace the device or FIFO with
// a regular file (as root, /dev/null itself).
func WritePrivate(path string, b []byte) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".hdig-*.tmp")
	if err != nil {
		return err
	}
	return writeRename(f, path, b)
}

// writeRename writes b to f, a new file, and renames it onto path; f is
// removed on failure.
func writeRename(f *os.File, path string, b []byte) error {
	_, err := f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
