package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// Base is a verified cached version, ready to serve as the source of a delta.
type Base struct {
	f    *os.File
	size int64
	u    *Unchecked
}

// ReadAt reads from the version's bytes.
func (b *Base) ReadAt(p []byte, off int64) (int, error) { return b.f.ReadAt(p, off) }

// Size returns the version's length in bytes.
func (b *Base) Size() int64 { return b.size }

// Close releases the version.
func (b *Base) Close() error { return b.f.Close() }

// Open returns the bytes of version e after checking them against
// e.SHA256 (and e.Size) in one streaming pass. A version that fails the
// check, or whose blob or linked file is gone, is dropped from the index
// (a damaged blob is deleted too; a linked file never is) and Open returns
// an error wrapping ErrCorrupt: the caller should fetch the whole
// representation instead. Open marks the version as used for eviction.
func (c *Cache) Open(e Entry) (*Base, error) {
	u, err := c.OpenUnchecked(e)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	n, err := io.Copy(h, u.Reader())
	checked.Add(n)
	if err != nil {
		err = fmt.Errorf("open cached %s: %w", e.URL, err)
	} else {
		err = u.Check(h.Sum(nil), n)
	}
	if err != nil {
		u.Close()
		return nil, err
	}
	return &Base{f: u.f, size: n, u: u}, nil
}

// Check says whether sum and n, the sha-256 and length of the version's
// bytes read again after Open checked them (a copy that hashes what it
// reads), are still the version's: bytes changed since are dropped as
// Open drops them, and the error wraps ErrCorrupt.
func (b *Base) Check(sum []byte, n int64) error { return b.u.mismatch(sum, n) }

// checked counts the bytes Open has read to check versions, process-wide,
// so tests can tell by counting how often a version was read.
var checked atomic.Int64

// Checked returns how many bytes Open has read, in this process, to check
// versions against their sha-256.
func Checked() int64 { return checked.Load() }

// Unchecked is a cached version opened to be read once, from start to
// end, by a caller that hashes what it reads with sha-256 anyway (the copy
// of a version a 304 names): Check then holds the bytes read to the
// version's sum, so they are read and hashed once, where Open and a copy
// would read and hash them twice. Bytes read are not known to be the
// version's until Check says so.
type Unchecked struct {
	c  *Cache
	e  Entry
	f  *os.File
	fi os.FileInfo
}

// OpenUnchecked opens the bytes of version e, checking what Open checks
// short of reading them: the blob's size, a linked file's identity. Its
// errors are Open's.
func (c *Cache) OpenUnchecked(e Entry) (*Unchecked, error) {
	f, err := c.openBytes(e)
	if isNotExist(err) {
		return nil, c.corrupt(e, nil, "missing")
	}
	if err != nil {
		return nil, fmt.Errorf("open cached %s: %w", e.URL, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open cached %s: %w", e.URL, err)
	}
	if e.Linked() && !linkedUnchanged(e, fi) {
		f.Close()
		return nil, c.corrupt(e, nil, "file changed since it was recorded")
	}
	if !e.Linked() && (!fi.Mode().IsRegular() || fi.Size() != e.Size) {
		f.Close()
		return nil, c.corrupt(e, fi, fmt.Sprintf("blob is %d bytes, want %d", fi.Size(), e.Size))
	}
	return &Unchecked{c: c, e: e, f: f, fi: fi}, nil
}

// Reader returns the version's bytes, and at most one byte more than
// recorded: a file that grows while it is read is caught without reading
// it to its end.
func (u *Unchecked) Reader() io.Reader { return io.LimitReader(u.f, u.e.Size+1) }

// Check says whether sum and n, the sha-256 and the length of everything
// read from Reader, are the version's. If not, the version is dropped as
// Open drops it and the error wraps ErrCorrupt; if so, it is marked used.
func (u *Unchecked) Check(sum []byte, n int64) error {
	if err := u.mismatch(sum, n); err != nil {
		return err
	}
	u.c.touch(u.e)
	return nil
}

// mismatch drops the version and returns an error wrapping ErrCorrupt
// unless sum and n are its sha-256 and length.
func (u *Unchecked) mismatch(sum []byte, n int64) error {
	if got := hex.EncodeToString(sum); got != u.e.SHA256 || n != u.e.Size {
		return u.c.corrupt(u.e, u.fi, fmt.Sprintf("sha-256 mismatch: want %s (%d bytes), got %s (%d bytes)", u.e.SHA256, u.e.Size, got, n))
	}
	return nil
}

// Close releases the version.
func (u *Unchecked) Close() error { return u.f.Close() }

// openBytes opens the blob or linked file of e; a FIFO at the linked
// file's name does not block (OpenUnchecked refuses it).
func (c *Cache) openBytes(e Entry) (*os.File, error) {
	if e.Linked() {
		return os.OpenFile(e.Path, os.O_RDONLY|openNonblock, 0)
	}
	if !validSum(e.SHA256) {
		return nil, fmt.Errorf("invalid sha-256 %q", e.SHA256)
	}
	return c.root.Open(blobName(e.SHA256))
}

// corrupt drops e and returns the ErrCorrupt to report.
func (c *Cache) corrupt(e Entry, bad os.FileInfo, why string) error {
	if err := c.drop(e, bad, why); err != nil {
		return fmt.Errorf("open cached %s: %w (and dropping it failed: %v)", e.URL, ErrCorrupt, err)
	}
	return fmt.Errorf("open cached %s %s: %s: %w", e.URL, e.ETag, why, ErrCorrupt)
}

// drop removes version e from the index. bad, if not nil, is e's blob found
// damaged (a damaged blob is damaged for every version naming it): it is
// deleted unless a Put has replaced it since. A linked file is never deleted.
func (c *Cache) drop(e Entry, bad os.FileInfo, why string) error {
	return c.locked(func() error {
		c.warnf("dropping cached %s %s: %s", e.URL, e.ETag, why)
		idx, err := c.readIndex(e.URL)
		if err != nil {
			return err
		}
		if idx.remove(e) {
			if err := c.writeIndex(idx); err != nil {
				return err
			}
		}
		if bad != nil && !e.Linked() {
			if fi, err := c.root.Stat(blobName(e.SHA256)); err == nil && os.SameFile(fi, bad) {
				c.root.Remove(blobName(e.SHA256))
			}
		}
		return nil
	})
}

// touch records that e was used now. A failure only costs LRU accuracy, so
// it is reported through Warnf and otherwise ignored.
func (c *Cache) touch(e Entry) {
	err := c.locked(func() error {
		idx, err := c.readIndex(e.URL)
		if err != nil {
			return err
		}
		for i, v := range idx.Versions {
			if v.ETag == e.ETag && v.SHA256 == e.SHA256 && v.Path == e.Path {
				idx.Versions[i].Used = c.now()
				return c.writeIndex(idx)
			}
		}
		return nil
	})
	if err != nil {
		c.warnf("cannot mark cached %s as used: %v", e.URL, err)
	}
}
