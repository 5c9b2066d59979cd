package cache

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
)

// staleTemp is how long a temporary file may go unwritten before GC takes
// it for the leftover of a crashed process rather than a Put in progress.
const staleTemp = time.Hour

// Remove drops every version of url and the blobs no other version shares.
// It returns the number of versions dropped.
func (c *Cache) Remove(url string) (int, error) {
	var n int
	err := c.locked(func() error {
		s, err := c.loadSet()
		if err != nil {
			return err
		}
		if idx := s.byURL[keyURL(url)]; idx != nil {
			for _, e := range idx.entries() {
				s.remove(e)
				n++
			}
		}
		_, _, err = c.commit(s)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("cache remove %s: %w", url, err)
	}
	return n, nil
}

// GC drops versions whose bytes are gone or changed (by the cheap size and
// mtime check of Versions), evicts beyond MaxBytes, and deletes unreadable
// index files, unreferenced blobs and stale temporary files. It returns how
// many versions and stray files it removed and the bytes of files deleted.
func (c *Cache) GC() (removed int, freed int64, err error) {
	err = c.locked(func() error {
		s, err := c.loadSet()
		if err != nil {
			return err
		}
		for _, idx := range s.all {
			if idx.corrupt && c.root.Remove(path.Join(indexDir, idx.name)) == nil {
				removed++
			}
		}
		for _, e := range s.entries() {
			if ok, _ := c.plausible(e); !ok {
				s.remove(e)
			}
		}
		s.evict(c.MaxBytes, Entry{})
		removed += len(s.dropped)
		if _, _, err := c.commit(s); err != nil {
			return err
		}
		live := map[string]bool{}
		for _, e := range s.entries() {
			if !e.Linked() {
				live[e.SHA256] = true
			}
		}
		n, f, err := c.sweep(live)
		removed += n
		freed += f
		return err
	})
	if err == nil {
		var n int
		n, err = c.GCDicts()
		removed += n
	}
	if err != nil {
		return removed, freed, fmt.Errorf("cache gc: %w", err)
	}
	return removed, freed, nil
}

// isTemp says de is a temporary file: a Put in progress, or the leftover
// of one that crashed.
func isTemp(de fs.DirEntry) bool {
	return strings.HasPrefix(de.Name(), tempPrefix) && de.Type().IsRegular()
}

// staleTempFile says a temporary file has gone unwritten for staleTemp: the
// leftover of a crashed process, not a Put in progress.
func staleTempFile(fi fs.FileInfo) bool {
	return time.Since(fi.ModTime()) > staleTemp
}

// sweep deletes blobs not in live, empty shard directories and stale
// temporary files. The caller holds the lock.
func (c *Cache) sweep(live map[string]bool) (int, int64, error) {
	var n int
	var freed int64
	del := func(name string, fi fs.FileInfo) {
		if c.root.Remove(name) == nil {
			n++
			freed += fi.Size()
		}
	}
	for _, dir := range []string{indexDir, blobDir} {
		des, err := fs.ReadDir(c.root.FS(), dir)
		if err != nil {
			return n, freed, err
		}
		for _, de := range des {
			name := path.Join(dir, de.Name())
			fi, err := de.Info()
			switch {
			case err != nil:
			case isTemp(de):
				if staleTempFile(fi) {
					del(name, fi)
				}
			case dir == blobDir && de.IsDir() && len(de.Name()) == 2:
				blobs, err := fs.ReadDir(c.root.FS(), name)
				if err != nil {
					return n, freed, err
				}
				for _, b := range blobs {
					if bi, err := b.Info(); err == nil && !live[b.Name()] {
						del(path.Join(name, b.Name()), bi)
					}
				}
				c.root.Remove(name) // only succeeds when empty
			}
		}
	}
	return n, freed, nil
}

// Clear deletes every version and blob. Linked files are left alone.
func (c *Cache) Clear() error {
	if err := c.ClearDicts(); err != nil {
		return err
	}
	return c.locked(func() error {
		for _, dir := range []string{indexDir, blobDir} {
			if err := c.root.RemoveAll(dir); err != nil {
				return fmt.Errorf("cache clear: %w", err)
			}
			if err := c.root.Mkdir(dir, 0o700); err != nil {
				return fmt.Errorf("cache clear: %w", err)
			}
		}
		return nil
	})
}
