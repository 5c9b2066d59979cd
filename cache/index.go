package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// The index is one JSON file per URL, index/<hex sha-256 of the URL>:
//
//	{"v":1,"url":"https://…","versions":[{"etag":"\"v2\"","size":…,"sha256":"…",…}]}
//
// One file per URL rather than a single index because the hot path of a GET
// (Versions, then Open) reads a single small file without taking the lock; a
// write replaces only that URL's file; a damaged file loses one URL, not the
// whole cache; and hashing the URL keeps any URL a valid file name. Changes
// that need the whole picture (eviction, Remove, GC) read every file under
// the lock, which is cheap at the sizes a base-version cache reaches.

const (
	indexDir     = "index"
	blobDir      = "blobs"
	tempPrefix   = "tmp-"
	indexVersion = 1
	// maxIndexFile bounds the index file of one URL read from disk: a few
	// versions with their header values take kilobytes.
	maxIndexFile = 16 << 20
	// maxIndexVersions bounds the versions of one URL read back (PerURL
	// keeps 3), and maxIndexField the text of one of their fields: an
	// ETag read back is sent in If-None-Match.
	maxIndexVersions = 64
	maxIndexField    = 8 << 10
)

// index is the content of one index file.
type index struct {
	V        int     `json:"v"`
	URL      string  `json:"url"`
	Versions []Entry `json:"versions"`

	corrupt bool   // unreadable: treated as empty
	name    string // file name under index/
}

// urlKey names the index file of url.
func urlKey(url string) string {
	sum := sha256.Sum256([]byte(url))
	return hex.EncodeToString(sum[:])
}

// keyURL is the form of a URL the cache stores and keys by: without
// userinfo, a credential that must never reach the disk or a listing, and
// without a fragment, which no request carries. Every entry point goes
// through readIndex, which applies it.
func keyURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil && u.Fragment == "" && u.RawFragment == "" {
		return raw
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	return u.String()
}

// blobName is the path of the blob with the given hex sha-256.
func blobName(sum string) string { return path.Join(blobDir, sum[:2], sum) }

// validSum reports whether s is a lowercase hex sha-256.
func validSum(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// entries returns the versions with their URL filled in, newest first.
func (idx *index) entries() []Entry {
	es := make([]Entry, len(idx.Versions))
	for i, e := range idx.Versions {
		e.URL = idx.URL
		es[i] = e
	}
	return es
}

// sortVersions orders the versions newest first.
func (idx *index) sortVersions() {
	sort.SliceStable(idx.Versions, func(i, j int) bool {
		return idx.Versions[i].Stored.After(idx.Versions[j].Stored)
	})
}

// readIndex reads the index file of url; a missing file is an empty index.
func (c *Cache) readIndex(url string) (*index, error) {
	url = keyURL(url)
	idx, err := c.readIndexFile(urlKey(url))
	if err != nil {
		return nil, err
	}
	if idx.corrupt || idx.URL == "" {
		return &index{V: indexVersion, URL: url, name: idx.name}, nil
	}
	return idx, nil
}

// readIndexFile reads index/name. A file that cannot be parsed, is of an
// unknown version, or does not belong to its name is reported through Warnf
// and returned empty with corrupt set.
func (c *Cache) readIndexFile(name string) (*index, error) {
	data, err := c.readSmall(path.Join(indexDir, name), maxIndexFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &index{V: indexVersion, name: name}, nil
	}
	if errors.Is(err, errTooBig) {
		return c.corruptIndex(name, err.Error()), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cache index: %w", err)
	}
	var in struct {
		V        int             `json:"v"`
		URL      string          `json:"url"`
		Versions boundedVersions `json:"versions"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return c.corruptIndex(name, err.Error()), nil
	}
	idx := &index{V: in.V, URL: in.URL, Versions: in.Versions, name: name}
	if idx.V != indexVersion {
		return c.corruptIndex(name, fmt.Sprintf("version %d, want %d", idx.V, indexVersion)), nil
	}
	if urlKey(idx.URL) != name {
		return c.corruptIndex(name, "it names another URL"), nil
	}
	kept := idx.Versions[:0]
	for _, e := range idx.Versions {
		if usable(e) {
			kept = append(kept, e)
		}
	}
	idx.Versions = kept
	idx.sortVersions()
	return idx, nil
}

// boundedVersions is an index's versions as read back: more than
// maxIndexVersions is an error at the one after, before the rest are
// built (boundedArray).
type boundedVersions []Entry

func (l *boundedVersions) UnmarshalJSON(b []byte) (err error) {
	*l, err = boundedArray[Entry](b, maxIndexVersions, "versions")
	return err
}

// usable reports whether a version read back can be offered and opened.
// A linked version was recorded with an absolute path (PutFile); a
// relative one would be looked up from the working directory.
func usable(e Entry) bool {
	return fieldsFit(e) == nil && validSum(e.SHA256) && e.Size >= 0 && (!e.Linked() || filepath.IsAbs(e.Path))
}

// fieldsFit fails a version with a field longer than an index read keeps
// (maxIndexField).
func fieldsFit(e Entry) error {
	for _, f := range []struct{ name, v string }{{"ETag", e.ETag}, {"Repr-Digest", e.ReprDigest},
		{"Content-Type", e.ContentType}, {"Content-Encoding", e.ContentEncoding}, {"path", e.Path}} {
		if len(f.v) > maxIndexField {
			return fmt.Errorf("%s of %d bytes, over %d", f.name, len(f.v), maxIndexField)
		}
	}
	return nil
}

// checkPut refuses, before a byte is written, a version an index read
// would drop (usable): written, its blob would be named by nothing,
// outside MaxBytes and never evicted.
func checkPut(e Entry) error {
	if e.URL == "" {
		return errors.New("cache put: empty URL")
	}
	if err := fieldsFit(e); err != nil {
		return fmt.Errorf("cache put %s: %w", keyURL(e.URL), err)
	}
	return nil
}

var errTooBig = errors.New("file too large")

// readSmall reads the file name under the root, failing with errTooBig
// rather than reading more than limit bytes.
func (c *Cache) readSmall(name string, limit int64) ([]byte, error) {
	f, err := c.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: over %d bytes", errTooBig, limit)
	}
	return data, nil
}

func (c *Cache) corruptIndex(name, why string) *index {
	c.warnf("cache index %s is unreadable (%s); treating it as empty", name, why)
	return &index{V: indexVersion, corrupt: true, name: name}
}

// writeIndex replaces the index file of idx atomically, or removes it when
// no versions are left. The caller holds the lock.
func (c *Cache) writeIndex(idx *index) error {
	name := path.Join(indexDir, urlKey(idx.URL))
	if len(idx.Versions) == 0 {
		if err := c.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write cache index: %w", err)
		}
		return nil
	}
	out := index{V: indexVersion, URL: idx.URL, Versions: make([]Entry, len(idx.Versions))}
	for i, e := range idx.Versions {
		e.URL = "" // stored once, at the top
		out.Versions[i] = e
	}
	data, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("write cache index: %w", err)
	}
	if err := c.writeAtomic(name, data); err != nil {
		return fmt.Errorf("write cache index: %w", err)
	}
	return nil
}

// readAll reads every index file, corrupt ones included (empty, corrupt set).
func (c *Cache) readAll() ([]*index, error) {
	des, err := fs.ReadDir(c.root.FS(), indexDir)
	if err != nil {
		return nil, fmt.Errorf("read cache index: %w", err)
	}
	var all []*index
	for _, de := range des {
		if strings.HasPrefix(de.Name(), tempPrefix) || !de.Type().IsRegular() {
			continue
		}
		idx, err := c.readIndexFile(de.Name())
		if err != nil {
			return nil, err
		}
		all = append(all, idx)
	}
	return all, nil
}

// remove deletes the version matching e and reports whether there was one.
func (idx *index) remove(e Entry) bool {
	for i, v := range idx.Versions {
		if v.ETag == e.ETag && v.SHA256 == e.SHA256 && v.Path == e.Path {
			idx.Versions = append(idx.Versions[:i], idx.Versions[i+1:]...)
			return true
		}
	}
	return false
}
