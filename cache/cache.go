// Package cache keeps base versions of fetched representations on disk, so
// that the next GET of a URL can list their entity tags in If-None-Match and
// ask for a 226 IM Used delta against one of them (RFC 3229).
//
// Layout of the cache directory (every access goes through an os.Root):
//
//	lock                  lock file; held exclusively while the index or blobs change
//	index/<sha256(URL)>   one small JSON file per URL: its versions, newest first
//	blobs/ab/abcdef…      the bytes, named by the hex sha-256 of their content
//	blobs/tmp-…, index/tmp-…  files being written; renamed into place when complete
//
// A version either owns a blob or is "linked": it records the path, size,
// mtime and sha-256 of a file hdig wrote with -o instead of a second copy.
// Every version is checked against its sha-256 before it is used as a base
// (Cache.Open); one that fails is dropped and reported as ErrCorrupt.
//
// Several hdig processes may share a cache: writers take the lock file, and
// every file is replaced by an atomic rename, so readers need no lock.
package cache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/internal/ownfile"
)

// ErrCorrupt reports a version whose bytes are missing or no longer match
// its sha-256: a damaged blob, or a linked file that was moved or edited.
// The version has been dropped from the index; the caller should refetch.
var ErrCorrupt = errors.New("cached version is corrupt or gone")

// ErrTooLarge reports a body larger than the cache's MaxBytes; it was not kept.
var ErrTooLarge = errors.New("body larger than the cache size limit")

// Defaults for a newly opened Cache.
const (
	DefaultMaxBytes = 1 << 30 // 1 GiB of blobs
	DefaultPerURL   = 3       // versions kept per URL
)

// Cache is a base-version cache in one directory. Set MaxBytes, PerURL and
// Warnf after Open and before first use. Its methods are safe for concurrent
// use by goroutines and by other processes sharing the directory.
type Cache struct {
	// Dir is the cache directory.
	Dir string
	// MaxBytes caps the bytes of all blobs; least recently used versions are
	// evicted beyond it. Linked versions count 0 bytes. 0 or less: no cap.
	MaxBytes int64
	// PerURL is how many versions of one URL are kept, newest first.
	// 0 or less: no limit.
	PerURL int
	// Warnf, if set, receives notes about damage that was repaired, such as
	// an unreadable index file treated as empty.
	Warnf func(format string, a ...any)
	// DictMaxBytes, DictMaxSize, DictMaxCount and DictPerOrigin bound the
	// compression dictionaries (dict.go): all bytes, one dictionary's
	// bytes, entries, entries per origin. 0 or less: the Default.
	DictMaxBytes, DictMaxSize   int64
	DictMaxCount, DictPerOrigin int

	root *os.Root
	now  func() time.Time
}

// Entry is one cached version of a URL.
type Entry struct {
	URL             string    `json:"url,omitempty"`
	ETag            string    `json:"etag"`                       // as the origin sent it, quotes included
	ReprDigest      string    `json:"repr_digest,omitempty"`      // Repr-Digest field value
	ContentType     string    `json:"content_type,omitempty"`     // Content-Type field value
	ContentEncoding string    `json:"content_encoding,omitempty"` // Content-Encoding of the stored bytes
	Size            int64     `json:"size"`                       // bytes
	SHA256          string    `json:"sha256"`                     // hex sha-256 of the stored bytes
	Path            string    `json:"path,omitempty"`             // linked file, or "" for a blob
	ModTime         time.Time `json:"mtime,omitzero"`             // linked file's mtime when recorded
	File            fileid.ID `json:"file,omitzero"`              // linked file's identity when recorded (zero in older indexes)
	Stored          time.Time `json:"stored"`                     // when the version was stored
	Used            time.Time `json:"used"`                       // when it was last stored or opened
}

// Linked reports whether e refers to a file outside the cache.
func (e Entry) Linked() bool { return e.Path != "" }

// DefaultDir returns $HDIG_CACHE_DIR, else the user cache directory + "/hdig".
func DefaultDir() (string, error) {
	if d := os.Getenv("HDIG_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set HDIG_CACHE_DIR): %w", err)
	}
	return filepath.Join(d, "hdig"), nil
}

// Open opens the cache in dir, creating it (mode 0700) if needed. The
// directory and its index and blobs must be the user's own (ownfile.Dir).
func Open(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("empty cache directory name")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create cache: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	for _, sub := range []string{".", indexDir, blobDir} {
		err := root.MkdirAll(sub, 0o700)
		var fi os.FileInfo
		if err == nil {
			fi, err = root.Lstat(sub)
		}
		if err == nil {
			err = ownfile.Dir(filepath.Join(dir, sub), fi)
		}
		if err != nil {
			root.Close()
			return nil, fmt.Errorf("open cache: %w", err)
		}
	}
	return &Cache{Dir: dir, MaxBytes: DefaultMaxBytes, PerURL: DefaultPerURL, root: root, now: time.Now}, nil
}

// Close releases the cache directory.
func (c *Cache) Close() error { return c.root.Close() }

// Versions returns the usable versions of url, newest first. Versions whose
// blob or linked file has vanished or changed size (or mtime) are dropped.
// A cheap check: Open still verifies the sha-256.
func (c *Cache) Versions(url string) ([]Entry, error) {
	idx, err := c.readIndex(url)
	if err != nil {
		return nil, err
	}
	var live []Entry
	for _, e := range idx.entries() {
		ok, bad := c.plausible(e)
		if ok {
			live = append(live, e)
			continue
		}
		if err := c.drop(e, bad, "its bytes are gone or changed"); err != nil {
			c.warnf("cannot drop cached %s %s: %v", e.URL, e.ETag, err) // still not offered
		}
	}
	return live, nil
}

// Lookup returns the usable version of url whose entity tag is etag.
func (c *Cache) Lookup(url, etag string) (Entry, bool, error) {
	vs, err := c.Versions(url)
	if err != nil {
		return Entry{}, false, err
	}
	for _, e := range vs {
		if e.ETag == etag {
			return e, true, nil
		}
	}
	return Entry{}, false, nil
}

// Entries returns every version in the cache, by URL, newest first.
func (c *Cache) Entries() ([]Entry, error) {
	all, err := c.readAll()
	if err != nil {
		return nil, err
	}
	var es []Entry
	for _, idx := range all {
		es = append(es, idx.entries()...)
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].URL < es[j].URL })
	return es, nil
}

// plausible is the cheap check of Versions: the bytes are there with the
// recorded size (and, for a linked file, the recorded version). bad is a
// blob of the wrong size, which is damaged.
func (c *Cache) plausible(e Entry) (ok bool, bad os.FileInfo) {
	if e.Linked() {
		fi, err := os.Stat(e.Path)
		return err == nil && linkedUnchanged(e, fi), nil
	}
	fi, err := c.root.Stat(blobName(e.SHA256))
	if err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	if fi.Size() != e.Size {
		return false, fi
	}
	return true, nil
}

// linkedUnchanged says whether the file fi may still be the version e
// recorded: a regular file of that size and mtime and, when e recorded a
// strong identity, that identity (an in-place edit with the mtime put back
// still changes the ctime). It proves nothing by itself: Open re-hashes.
func linkedUnchanged(e Entry, fi os.FileInfo) bool {
	if !fi.Mode().IsRegular() || fi.Size() != e.Size || !fi.ModTime().Equal(e.ModTime) {
		return false
	}
	return !e.File.Strong() || fileid.Same(fileid.Of(fi), e.File)
}

func (c *Cache) warnf(format string, a ...any) {
	if c.Warnf != nil {
		c.Warnf(format, a...)
	}
}
