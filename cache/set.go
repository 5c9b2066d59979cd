package cache

import (
	"errors"
	"io/fs"
	"sort"
)

// set is the whole index, read under the lock for a change that may touch
// several URLs or need to know which blobs are still referenced.
type set struct {
	all     []*index
	byURL   map[string]*index
	dirty   map[*index]bool
	dropped []Entry // removed versions whose blob may now be unreferenced
}

// loadSet reads the whole index. The caller holds the lock.
func (c *Cache) loadSet() (*set, error) {
	all, err := c.readAll()
	if err != nil {
		return nil, err
	}
	s := &set{all: all, byURL: map[string]*index{}, dirty: map[*index]bool{}}
	for _, idx := range all {
		if !idx.corrupt {
			s.byURL[idx.URL] = idx
		}
	}
	return s, nil
}

// entries returns every version in the set.
func (s *set) entries() []Entry {
	var es []Entry
	for _, idx := range s.all {
		es = append(es, idx.entries()...)
	}
	return es
}

// remove drops version e.
func (s *set) remove(e Entry) {
	if idx := s.byURL[e.URL]; idx != nil && idx.remove(e) {
		s.dirty[idx] = true
		s.dropped = append(s.dropped, e)
	}
}

// add inserts e as the newest version of its URL. It replaces a version
// with the same entity tag, and any linked version of the same file, which
// the new one has overwritten. Versions beyond perURL are dropped.
func (s *set) add(e Entry, perURL int) {
	for _, old := range s.entries() {
		if old.URL == e.URL && old.ETag == e.ETag || e.Linked() && old.Path == e.Path {
			s.remove(old)
		}
	}
	idx := s.byURL[e.URL]
	if idx == nil {
		idx = &index{V: indexVersion, URL: e.URL}
		s.all = append(s.all, idx)
		s.byURL[e.URL] = idx
	}
	v := e
	v.URL = ""
	idx.Versions = append(idx.Versions, v)
	idx.sortVersions()
	s.dirty[idx] = true
	if perURL > 0 {
		for _, old := range idx.entries()[min(perURL, len(idx.Versions)):] {
			s.remove(old)
		}
	}
}

// evict drops least recently used versions until the blobs fit in max
// bytes, sparing keep. A blob shared by several versions counts once and
// is freed with the last of them; linked versions count nothing.
func (s *set) evict(max int64, keep Entry) {
	if max <= 0 {
		return
	}
	refs := map[string]int{}
	var total int64
	var es []Entry
	for _, e := range s.entries() {
		if e.Linked() {
			continue
		}
		if refs[e.SHA256] == 0 {
			total += e.Size
		}
		refs[e.SHA256]++
		es = append(es, e)
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].Used.Before(es[j].Used) })
	for _, e := range es {
		if total <= max {
			break
		}
		if e.URL == keep.URL && e.ETag == keep.ETag {
			continue
		}
		s.remove(e)
		if refs[e.SHA256]--; refs[e.SHA256] == 0 {
			total -= e.Size
		}
	}
}

// commit writes the changed index files, then deletes the blobs no version
// refers to any more, so that a crash leaves at worst an orphan blob for GC,
// never a version without its bytes. It returns the blobs deleted and their
// bytes.
func (c *Cache) commit(s *set) (int, int64, error) {
	for _, idx := range s.all {
		if s.dirty[idx] {
			if err := c.writeIndex(idx); err != nil {
				return 0, 0, err
			}
		}
	}
	live := map[string]bool{}
	for _, e := range s.entries() {
		if !e.Linked() {
			live[e.SHA256] = true
		}
	}
	var n int
	var freed int64
	for _, e := range s.dropped {
		if e.Linked() || live[e.SHA256] {
			continue
		}
		live[e.SHA256] = true // delete once
		fi, err := c.root.Stat(blobName(e.SHA256))
		if err != nil {
			continue
		}
		if err := c.root.Remove(blobName(e.SHA256)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue // open elsewhere on Windows; GC retries
		}
		n++
		freed += fi.Size()
	}
	return n, freed, nil
}
