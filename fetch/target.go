package fetch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Output is where -o FILE puts the verified bytes.
type Output struct {
	// Path is the file the bytes land in: FILE, or the file a symbolic
	// link FILE leads to (the part file goes beside it, and is renamed
	// onto it: the link stays).
	Path string
	// Special is a character device or a FIFO: the verified bytes are
	// written into it (DeviceSink), never renamed onto it.
	Special bool
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// ResolveOutput looks at -o FILE before anything is fetched: a regular file
// or a new name is written by rename, a symbolic link is followed to its
// target (which need not exist yet), a character device or FIFO, or an
// open file of the process's (/dev/stdout, /dev/fd/N: fdLink) is written
// into (not a FIFO someone else made in a shared directory: fifoWritable),
// and anything else (a directory, a socket, a block device) is an
// error naming it.
func ResolveOutput(path string) (Output, error) {
	target, err := followLinks(path)
	if err != nil {
		return Output{}, err
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Output{Path: target}, nil
	case err != nil:
		return Output{}, err
	case replaced(target, fi):
		return Output{Path: target}, nil
	case fi.IsDir():
		return Output{}, fmt.Errorf("-o %s: is a directory, want a file name", path)
	case fi.Mode().IsRegular() || fi.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		if err := fifoWritable(target, fi); err != nil {
			return Output{}, err
		}
		return Output{Path: target, Special: true}, nil
	}
	return Output{}, fmt.Errorf("-o %s: a %s, want a regular file, a character device or a FIFO", path, kind(fi.Mode()))
}

// NamesOpen says path names the open file f through one of the process's
// descriptor links (/dev/stdout, /dev/fd/N, /proc/self/fd/N: fdLink), as
// -o /dev/stdout names stdout: writing through f keeps its one file
// position, where opening path again would give a second one, and what is
// written through f afterwards (-w's text) would overwrite the body.
func NamesOpen(path string, f *os.File) bool {
	target, err := followLinks(path)
	if err != nil || !fdLink(target) {
		return false
	}
	a, err := os.Stat(target)
	if err != nil {
		return false
	}
	b, err := f.Stat()
	return err == nil && os.SameFile(a, b)
}

// replaced says the file at target (fi, its Stat) is replaced by rename:
// a regular file, not an open file of the process's (/dev/stdout: fdLink),
// which is written into as a device is.
func replaced(target string, fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && !fdLink(target)
}

// followLinks resolves the symbolic links of path's last element, up to a
// link naming an open file (fdLink), which is no path.
func followLinks(path string) (string, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 || fdLink(p) {
			return p, nil
		}
		if err := linkFollowable(p, fi); err != nil {
			return "", err
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", fmt.Errorf("-o %s: more than %d levels of symbolic links", path, maxLinks)
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file (" + m.String() + ")"
}

// DeviceSink holds a body back until it is verified, like stdout (HeldSink),
// and then writes it into a character device or FIFO, opened only then
// (a FIFO's open waits for a reader): /dev/null stays /dev/null.
type DeviceSink struct {
	HeldSink
	Path string
}

// Commit opens the device and writes the held body into it, at its end
// (O_APPEND: after what the shell's >> file holds, or hdig's own -i heads
// written to the same stdout; a FIFO or a device has no end).
func (s *DeviceSink) Commit() error {
	f, err := os.OpenFile(s.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		s.HeldSink.Abort()
		return err
	}
	s.Out = f
	err = s.HeldSink.Commit()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fileOutput resolves path for a sink that renames onto it.
func fileOutput(path string) (string, error) {
	out, err := ResolveOutput(path)
	if err == nil && out.Special {
		err = fmt.Errorf("-o %s: a device or FIFO is written into, not replaced (DeviceSink)", path)
	}
	return out.Path, err
}
