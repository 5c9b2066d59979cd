package fetch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hdig/hdig/internal/ownfile"
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
// that hdig could not have left (ownfile.Own: a symbolic link, a FIFO,
// someone else's file put in a shared directory) is unlinked, never
// followed, written into, nor its mode taken (PartMode).
func ClearScratch(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && ownfile.Own(fi)) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %s, not hdig's own: %w", path, ownfile.Why(fi), err)
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
	if !ownfile.Own(before) {
		return nil, fmt.Errorf("%s: %s: not resumed", part, ownfile.Why(before))
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

// ReplaceFile replaces path, a file of hdig's own (a sidecar), with b
// through path.tmp, made by CreateScratchPart: a sidecar written beside a
// part in a shared directory writes through no link either, nor takes the
// mode of what someone put at its name (a 0666 file would make the
// user's own sidecar, which -C trusts, writable by anyone).
func ReplaceFile(path string, b []byte) error {
	f, err := CreateScratchPart(path + ".tmp")
	if err != nil {
		return err
	}
	return writeRename(f, path, b)
}

// WritePrivate replaces path with b through a new temporary file of mode
// 0600 beside it, as curl writes its cookie jar: the old file's mode is
// not kept, a link at path is replaced rather than written through, and a
// failed write leaves path as it was. What path leads to that ResolveOutput
// would write into (-c /dev/null, a FIFO, /dev/stdout; a link to one) is
// written into, at its end, as curl's Curl_fopen does: a rename would
// replace the device or FIFO with a regular file (as root, /dev/null
// itself, or the link /dev/stdout); not a FIFO someone else made in a
// shared directory, which curl's open(O_CREAT) is refused (fifoWritable).
func WritePrivate(path string, b []byte) error {
	into, err := writtenInto(path)
	if err != nil {
		return err
	}
	if into {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
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

// writtenInto says what path leads to is written into, not replaced: it
// exists and is neither a directory nor a file replaced by rename
// (replaced). A FIFO someone else made in a shared directory, or a link
// there on the way to one, is refused.
func writtenInto(path string) (bool, error) {
	target, err := followLinks(path)
	if err != nil {
		return false, err
	}
	fi, err := os.Stat(target)
	if err != nil || fi.IsDir() || replaced(target, fi) {
		return false, nil
	}
	return true, fifoWritable(target, fi)
}
