// Package fileid names a version of a file on disk by what the file system
// records about it, including what a user cannot set back.
//
// Size and modification time can be restored after an in-place edit (touch -d,
// cp -p, a reproducible build); the change time (ctime), the device and the
// inode cannot. An ID is therefore a cheap test that a file is still the
// version it was when it was hashed: when IDs differ the bytes must be read
// again, and when they are equal nothing short of a change of the clock or of
// the file system itself has rewritten the file.
//
// Where the platform has no change time or inode (ID.Strong reports false), a
// caller that must not trust stale bytes re-hashes what it reads.
package fileid

import (
	"io/fs"
	"os"
)

// ID identifies one version of a file. The zero ID matches nothing.
type ID struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime_ns"`           // modification time, Unix nanoseconds
	CTime int64  `json:"ctime_ns,omitempty"` // status change time, Unix nanoseconds (0: unknown)
	Dev   uint64 `json:"dev,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
}

// Of returns the ID of the file fi describes.
func Of(fi fs.FileInfo) ID {
	id := ID{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	id.CTime, id.Dev, id.Ino = sys(fi)
	return id
}

// Stat returns the ID of the file at path (following symbolic links).
func Stat(path string) (ID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return ID{}, err
	}
	return Of(fi), nil
}

// File returns the ID of an open file.
func File(f *os.File) (ID, error) {
	fi, err := f.Stat()
	if err != nil {
		return ID{}, err
	}
	return Of(fi), nil
}

// Strong reports whether the ID carries a change time and an inode, the parts
// a user cannot set back. A weak ID (zero ctime or inode) proves nothing on
// its own.
func (id ID) Strong() bool { return id.CTime != 0 && id.Ino != 0 }

// Same reports whether a and b name the same version of the same file: every
// recorded field is equal and both are strong. Two weak IDs are never the
// same, so a caller falls back to reading the bytes.
func Same(a, b ID) bool {
	return a == b && a.Strong()
}

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }
