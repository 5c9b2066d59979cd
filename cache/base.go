package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// Base is a verified cached version, ready to serve as the source of a delta.
type Base struct {
	f    *os.File
	size int64
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
	// Hash at most one byte more than recorded: a file that grows while
	// it is read is caught without reading it to its end.
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, e.Size+1))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open cached %s: %w", e.URL, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != e.SHA256 || n != e.Size {
		f.Close()
		return nil, c.corrupt(e, fi, fmt.Sprintf("sha-256 mismatch: want %s (%d bytes), got %s (%d bytes)", e.SHA256, e.Size, got, n))
	}
	c.touch(e)
	return &Base{f: f, size: n}, nil
}

// openBytes opens the blob or linked file of e.
func (c *Cache) openBytes(e Entry) (*os.File, error) {
	if e.Linked() {
		return os.Open(e.Path)
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
