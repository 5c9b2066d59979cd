package cache

import (
	"github.com/hdig/hdig/fileid"

	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Put stores the bytes read from r as a version of e.URL with the metadata
// of e (ETag, ReprDigest, ContentType, ContentEncoding). If e.SHA256 is set,
// the bytes must hash to it. The bytes stream into a temporary file while
// being hashed and are renamed to their content address, so identical
// bodies share one blob. Put then records the version, trims the URL to
// PerURL versions and evicts least recently used versions beyond MaxBytes.
// It returns the stored entry; a body over MaxBytes is refused with
// ErrTooLarge.
func (c *Cache) Put(e Entry, r io.Reader) (Entry, error) {
	return c.putBlob(e, func(f *os.File) (int64, string, error) { return c.copyHashed(f, r) })
}

// PutVerified stores the first size bytes of src as a version of e.URL,
// as Put does, when e.SHA256 is their sha-256 computed by the caller as
// they arrived (the spool of a body held back until it was verified):
// they are not hashed again. An anonymous file from Spool holding exactly
// size bytes becomes the blob itself, given a name and not copied: the
// caller must not change its bytes afterwards (it has a name now). Other
// files are copied by the kernel where it can (copy_file_range, a reflink
// where the filesystem shares extents). Open checks a version against its
// sha-256 whenever it is used, so bytes that do not match their sum make a
// version that is dropped, never one that is used. A size over MaxBytes is
// refused with ErrTooLarge before anything is copied or named.
func (c *Cache) PutVerified(e Entry, src *os.File, size int64) (Entry, error) {
	if !validSum(e.SHA256) {
		return Entry{}, fmt.Errorf("cache put %s: sha-256 %q is not 64 lowercase hex digits", e.URL, e.SHA256)
	}
	if err := checkPut(e); err != nil {
		return Entry{}, err
	}
	if c.MaxBytes > 0 && size > c.MaxBytes {
		return Entry{}, fmt.Errorf("cache put %s: %w (%d bytes)", e.URL, ErrTooLarge, c.MaxBytes)
	}
	if tmp, err := c.linkTemp(src, size); err == nil {
		return c.placeVersion(e, tmp, size, e.SHA256)
	}
	return c.putBlob(e, func(f *os.File) (int64, string, error) {
		if _, err := src.Seek(0, io.SeekStart); err != nil {
			return 0, "", err
		}
		// *os.File's ReadFrom copies from an *os.File in the kernel.
		n, err := f.ReadFrom(io.LimitReader(src, size))
		blobsCopied.Add(n)
		if err == nil && n != size {
			err = fmt.Errorf("copied %d bytes, want %d", n, size)
		}
		return n, e.SHA256, err
	})
}

// putBlob writes a new blob with fill (which returns its size and
// sha-256), then places it (placeVersion).
//
// The blob is not synced to disk, the index is: every use of a version
// checks its blob against the sha-256 (Open, Check), so a blob torn by a
// crash is dropped, never used, and a download does not wait for the disk
// to take its second copy of the body (0.4 s for 512 MiB here; seconds on
// a slow disk), which curl and wget never make.
func (c *Cache) putBlob(e Entry, fill func(*os.File) (int64, string, error)) (Entry, error) {
	if err := checkPut(e); err != nil {
		return Entry{}, err
	}
	f, tmp, err := c.createTemp(blobDir)
	if err != nil {
		return Entry{}, fmt.Errorf("cache put: %w", err)
	}
	n, sum, err := fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && e.SHA256 != "" && e.SHA256 != sum {
		err = fmt.Errorf("sha-256 mismatch: want %s, got %s", e.SHA256, sum)
	}
	if err != nil {
		c.root.Remove(tmp)
		return Entry{}, fmt.Errorf("cache put %s: %w", keyURL(e.URL), err)
	}
	return c.placeVersion(e, tmp, n, sum)
}

// placeVersion renames the temporary file tmp (n bytes hashing to sum) to
// its content address, so identical bodies share one blob, and records e
// as a version of e.URL, trimmed to PerURL versions, evicting beyond
// MaxBytes. tmp is removed if that fails.
func (c *Cache) placeVersion(e Entry, tmp string, n int64, sum string) (Entry, error) {
	e.URL = keyURL(e.URL)
	e.Size, e.SHA256, e.Path = n, sum, ""
	e.Stored = c.now()
	e.Used = e.Stored
	err := c.locked(func() error {
		if err := c.placeBlob(tmp, sum); err != nil {
			return err
		}
		s, err := c.loadSet()
		if err != nil {
			return err
		}
		s.add(e, c.PerURL)
		s.evict(c.MaxBytes, e)
		_, _, err = c.commit(s)
		return err
	})
	if err != nil {
		c.root.Remove(tmp)
		return Entry{}, fmt.Errorf("cache put %s: %w", e.URL, err)
	}
	return e, nil
}

// copyHashed copies r into f, hashing. It stops with ErrTooLarge past
// MaxBytes. f is not synced (putBlob).
func (c *Cache) copyHashed(f *os.File, r io.Reader) (int64, string, error) {
	h := sha256.New()
	if c.MaxBytes > 0 {
		r = io.LimitReader(r, c.MaxBytes+1)
	}
	n, err := io.Copy(io.MultiWriter(f, h), r)
	if err != nil {
		return 0, "", err
	}
	if c.MaxBytes > 0 && n > c.MaxBytes {
		return 0, "", fmt.Errorf("%w (%d bytes)", ErrTooLarge, c.MaxBytes)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// placeBlob renames the temporary file tmp to the blob named sum. The
// rename replaces an existing blob of that name, which mends one damaged
// on disk; where the old one cannot be replaced (open on Windows) it is
// kept and tmp removed. The caller holds the lock.
func (c *Cache) placeBlob(tmp, sum string) error {
	name := blobName(sum)
	if err := c.root.MkdirAll(path.Dir(name), 0o700); err != nil {
		return err
	}
	if err := c.rename(tmp, name); err != nil {
		if _, serr := c.root.Stat(name); serr != nil {
			return err
		}
		c.root.Remove(tmp)
	}
	c.syncDir(path.Dir(name))
	return nil
}

// PutFile records the file at path, which holds a version of e.URL and
// hashes to sum (hex sha-256; hashed here if empty), as a linked version:
// the cache keeps its path, size and mtime instead of a copy. A linked
// version is used as a base only while the file still has that size, mtime
// and sha-256, and (where the platform has one) the same identity: ctime
// and inode included, so an in-place edit with the mtime put back is
// noticed before the file is even re-hashed. Linked versions count nothing towards MaxBytes.
func (c *Cache) PutFile(e Entry, file, sum string) (Entry, error) {
	if err := checkPut(e); err != nil {
		return Entry{}, err
	}
	e.URL = keyURL(e.URL)
	abs, err := filepath.Abs(file)
	if err != nil {
		return Entry{}, fmt.Errorf("cache put %s: %w", e.URL, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return Entry{}, fmt.Errorf("cache put %s: %w", e.URL, err)
	}
	if !fi.Mode().IsRegular() {
		return Entry{}, fmt.Errorf("cache put %s: %s is not a regular file", e.URL, file)
	}
	if sum == "" {
		if sum, err = hashFile(abs); err != nil {
			return Entry{}, fmt.Errorf("cache put %s: %w", e.URL, err)
		}
	}
	if !validSum(sum) {
		return Entry{}, fmt.Errorf("cache put %s: sha-256 %q is not 64 lowercase hex digits", e.URL, sum)
	}
	e.Size, e.SHA256, e.Path, e.ModTime, e.File = fi.Size(), sum, abs, fi.ModTime(), fileid.Of(fi)
	e.Stored = c.now()
	e.Used = e.Stored
	err = c.locked(func() error {
		s, err := c.loadSet()
		if err != nil {
			return err
		}
		s.add(e, c.PerURL)
		_, _, err = c.commit(s)
		return err
	})
	if err != nil {
		return Entry{}, fmt.Errorf("cache put %s: %w", e.URL, err)
	}
	return e, nil
}

func hashFile(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// isNotExist reports whether err means a file is missing.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
