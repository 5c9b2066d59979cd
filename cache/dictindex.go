package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

const (
	dictIndexName    = dictDir + "/index.json"
	dictIndexVersion = 1
	// maxDictIndexFile bounds the index read back; maxDictEntries the
	// entries kept from it, whatever DictMaxCount says.
	maxDictIndexFile = 4 << 20
	maxDictEntries   = 1024
	// Bounds of one entry's text read back (RFC 9842 bounds match and id
	// on the wire; the index is checked again, it may have been edited).
	maxDictURL   = 8 << 10
	maxDictMatch = 2048
	maxDictID    = 1024
	maxDictDests = 32
	maxDictDest  = 64
)

// dictIndex is the content of dicts/index.json.
type dictIndex struct {
	V     int    `json:"v"`
	Dicts []Dict `json:"dicts"`
}

// readDictIndex reads the index; a missing one is empty, an unreadable
// one is reported through Warnf and read as empty. Entries that fail
// usableDict are left out; the rest come newest first.
func (c *Cache) readDictIndex() *dictIndex {
	empty := &dictIndex{V: dictIndexVersion}
	data, err := c.readSmall(dictIndexName, maxDictIndexFile)
	if errors.Is(err, fs.ErrNotExist) {
		return empty
	}
	if err == nil {
		err = parseDictIndex(data, empty)
	}
	if err != nil {
		c.warnf("dictionary index is unreadable (%s); treating it as empty", oneLine(err.Error()))
		return &dictIndex{V: dictIndexVersion}
	}
	return empty
}

// parseDictIndex decodes data into idx, keeping the usable entries.
func parseDictIndex(data []byte, idx *dictIndex) error {
	var in struct {
		V     int         `json:"v"`
		Dicts boundedList `json:"dicts"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	if in.V != dictIndexVersion {
		return fmt.Errorf("version %d, want %d", in.V, dictIndexVersion)
	}
	idx.V, idx.Dicts = in.V, in.Dicts
	kept := idx.Dicts[:0]
	for _, d := range idx.Dicts {
		if usableDict(d) {
			kept = append(kept, d)
		}
	}
	idx.Dicts = kept
	sort.SliceStable(idx.Dicts, func(i, j int) bool { return idx.Dicts[i].Stored.After(idx.Dicts[j].Stored) })
	return nil
}

// boundedList is the index's list of entries as read back: more than
// maxDictEntries is an error found at entry maxDictEntries+1, before the
// rest are built (a few bytes of JSON, "{}", are a Dict of hundreds).
type boundedList []Dict

func (l *boundedList) UnmarshalJSON(b []byte) (err error) {
	*l, err = boundedArray[Dict](b, maxDictEntries, "dictionaries")
	return err
}

// usableDict reports whether an entry read back can be matched and read.
func usableDict(d Dict) bool {
	return validSum(d.SHA256) && d.Size >= 0 && d.Type == "raw" && d.URL != "" && d.Origin != "" && d.Match != "" &&
		dictFieldsFit(d) == nil
}

// dictFieldsFit fails an entry with more text than an index read keeps;
// PutDict refuses it before its bytes are written, as usableDict would
// drop it on every read.
func dictFieldsFit(d Dict) error {
	for _, f := range []struct {
		name   string
		n, max int
	}{{"URL", len(d.URL), maxDictURL}, {"origin", len(d.Origin), maxDictURL}, {"match", len(d.Match), maxDictMatch},
		{"id", len(d.ID), maxDictID}, {"match-dest", len(d.MatchDest), maxDictDests}} {
		if f.n > f.max {
			return fmt.Errorf("its %s is %d long, over %d", f.name, f.n, f.max)
		}
	}
	for _, s := range d.MatchDest {
		if len(s) > maxDictDest {
			return fmt.Errorf("a match-dest of %d bytes, over %d", len(s), maxDictDest)
		}
	}
	return nil
}

// writeDictIndex replaces the index atomically, then deletes the bytes no
// entry names (a crash leaves at worst an orphan for GCDicts). The caller
// holds the lock.
func (c *Cache) writeDictIndex(idx *dictIndex) error {
	idx.V = dictIndexVersion
	if err := c.root.MkdirAll(dictDir, 0o700); err != nil {
		return fmt.Errorf("write dictionary index: %w", err)
	}
	data, err := json.Marshal(idx)
	if err != nil {
		return fmt.Errorf("write dictionary index: %w", err)
	}
	if err := c.writeAtomic(dictIndexName, data); err != nil {
		return fmt.Errorf("write dictionary index: %w", err)
	}
	c.sweepDicts(idx)
	return nil
}

// sweepDicts deletes files under dicts/ that no entry names, and stale
// temporary files (a PutDict that crashed), but not the index nor a
// PutDict in progress. It returns how many.
func (c *Cache) sweepDicts(idx *dictIndex) int {
	live := map[string]bool{}
	for _, d := range idx.Dicts {
		live[d.SHA256] = true
	}
	des, err := fs.ReadDir(c.root.FS(), dictDir)
	if err != nil {
		return 0
	}
	n := 0
	for _, de := range des {
		name := de.Name()
		if isTemp(de) {
			if fi, err := de.Info(); err == nil && staleTempFile(fi) && c.root.Remove(path.Join(dictDir, name)) == nil {
				n++
			}
			continue
		}
		if !validSum(name) || live[name] {
			continue
		}
		if c.root.Remove(dictBlob(name)) == nil {
			n++
		}
	}
	return n
}

// trimDicts drops expired entries, then the least recently used ones
// (sparing keep) until each origin has at most DictPerOrigin, and the
// store at most DictMaxCount entries and DictMaxBytes bytes.
func (c *Cache) trimDicts(idx *dictIndex, keep Dict) {
	now := c.now()
	live := idx.Dicts[:0]
	for _, d := range idx.Dicts {
		if d.Fresh(now) || d.URL == keep.URL && d.SHA256 == keep.SHA256 {
			live = append(live, d)
		}
	}
	byUse := append([]Dict{}, live...)
	sort.SliceStable(byUse, func(i, j int) bool { return byUse[i].Used.Before(byUse[j].Used) })
	perOrigin := map[string]int{}
	var total int64
	for _, d := range live {
		perOrigin[d.Origin]++
		total += d.Size
	}
	gone := map[int]bool{}
	count := len(live)
	// First each origin to its share, then the store to its totals.
	for pass := range 2 {
		for i, d := range byUse {
			if gone[i] || d.URL == keep.URL && d.SHA256 == keep.SHA256 {
				continue
			}
			over := perOrigin[d.Origin] > orDefault(c.DictPerOrigin, DefaultDictPerOrigin)
			if pass == 1 {
				over = count > orDefault(c.DictMaxCount, DefaultDictMaxCount) || total > c.dictMaxBytes()
			}
			if over {
				gone[i] = true
				perOrigin[d.Origin]--
				count--
				total -= d.Size
			}
		}
	}
	kept := live[:0]
	for _, d := range live {
		if !isGone(d, byUse, gone) {
			kept = append(kept, d)
		}
	}
	idx.Dicts = kept
}

func isGone(d Dict, byUse []Dict, gone map[int]bool) bool {
	for i, g := range byUse {
		if gone[i] && g.URL == d.URL && g.SHA256 == d.SHA256 {
			return true
		}
	}
	return false
}

func (c *Cache) dictMaxBytes() int64 {
	if c.DictMaxBytes > 0 {
		return c.DictMaxBytes
	}
	return DefaultDictMaxBytes
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// oneLine keeps a message on one bounded line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
