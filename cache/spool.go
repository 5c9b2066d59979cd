package cache

import (
	"errors"
	"os"
	"path"
	"sync/atomic"
)

// Spool returns a new anonymous file in the cache's directory (opened for
// reading and writing, with no name: nothing is left behind whatever
// happens) for a body that may become a version: PutVerified then gives it
// a name in the cache instead of copying it, so the body is written once,
// not twice. Where the system or filesystem cannot make such a file
// (O_TMPFILE on Linux) it fails, and the caller spools elsewhere.
func (c *Cache) Spool() (*os.File, error) {
	d, err := c.root.Open(blobDir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return openAnon(d)
}

// blobsCopied counts the bytes PutVerified copied into blobs, for tests:
// a spool it links costs none.
var blobsCopied atomic.Int64

// BlobsCopied returns how many bytes PutVerified has copied into blobs.
func BlobsCopied() int64 { return blobsCopied.Load() }

// linkTemp gives the anonymous file f (from Spool, with exactly size bytes)
// a temporary name in the blob directory and returns that name. It fails
// when f has a name already, another size, or lives on another filesystem:
// the caller copies instead.
func (c *Cache) linkTemp(f *os.File, size int64) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Size() != size || links(fi) != 0 {
		return "", errNotAnon
	}
	d, err := c.root.Open(blobDir)
	if err != nil {
		return "", err
	}
	defer d.Close()
	return tempName(blobDir, func(name string) error { return linkAnon(f, d, path.Base(name)) })
}

// errNotAnon: the file given is not an anonymous file of the right size.
var errNotAnon = errors.New("not an anonymous spool of that size")
