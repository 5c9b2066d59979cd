package cache

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sync/atomic"
	"time"
)

const lockName = "lock"

// locked runs fn while holding the cache's lock file exclusively. Each call
// opens the lock file anew, so the lock also excludes other goroutines of
// this process.
func (c *Cache) locked(fn func() error) error {
	f, err := c.root.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock cache: %w", err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return fmt.Errorf("lock cache: %w", err)
	}
	defer unlockFile(f)
	return fn()
}

// createTemp creates a new temporary file in dir (relative to the root).
func (c *Cache) createTemp(dir string) (*os.File, string, error) {
	var f *os.File
	name, err := tempName(dir, func(name string) (err error) {
		f, err = c.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		return err
	})
	return f, name, err
}

// tempName makes a new temporary name in dir with create (which fails
// with fs.ErrExist for a name taken) and returns it.
func tempName(dir string, create func(name string) error) (string, error) {
	for range 10 {
		var b [8]byte
		rand.Read(b[:])
		name := path.Join(dir, tempPrefix+hex.EncodeToString(b[:]))
		err := create(name)
		switch {
		case errors.Is(err, fs.ErrExist):
			continue
		case err != nil:
			return "", err
		}
		return name, nil
	}
	return "", errors.New("cannot create a temporary file")
}

// writeAtomic replaces name with data: a temporary file in the same
// directory is written, synced and renamed onto name.
func (c *Cache) writeAtomic(name string, data []byte) error {
	f, tmp, err := c.createTemp(path.Dir(name))
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = c.rename(tmp, name)
	}
	if err != nil {
		c.root.Remove(tmp)
		return err
	}
	c.syncDir(path.Dir(name))
	return nil
}

// rename renames within the root, retrying briefly: on Windows a rename
// onto a file another process is reading fails until the reader closes it.
func (c *Cache) rename(from, to string) error {
	var err error
	for i := range 5 {
		if err = c.root.Rename(from, to); err == nil {
			return nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		time.Sleep(time.Duration(i+1) * 10 * time.Millisecond)
	}
	return err
}

// syncedBytes counts the bytes of the files the cache has synced (tests
// count them).
var syncedBytes atomic.Int64

// syncFile syncs f to disk, counting its bytes.
func syncFile(f *os.File) error {
	if fi, err := f.Stat(); err == nil {
		syncedBytes.Add(fi.Size())
	}
	return f.Sync()
}

// syncDir makes a rename in dir durable where the system allows it
// (best effort: Windows cannot sync a directory).
func (c *Cache) syncDir(dir string) {
	if d, err := c.root.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
