package delta

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultMaxTotal bounds the bytes of all retained versions together: a
// client that fetches many files cannot make the origin keep copies of all
// of them. The oldest versions, whatever their file, go first.
const DefaultMaxTotal = 2 << 30

// enforceBudget removes the oldest retained versions until their bytes
// fit in h.maxTotal, never the one just recorded (keep, a blob name). It
// runs after a new version is recorded, the only time the total grows, and
// holds no file's lock itself: each index is changed under its own.
func (h *Handler) enforceBudget(keep string) {
	h.budgetMu.Lock()
	defer h.budgetMu.Unlock()
	blobs, err := os.ReadDir(filepath.Join(h.dir, "blobs"))
	if err != nil {
		return
	}
	type blob struct {
		name string
		size int64
		mod  int64
	}
	var all []blob
	var total int64
	for _, e := range blobs {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		all = append(all, blob{e.Name(), fi.Size(), fi.ModTime().UnixNano()})
		total += fi.Size()
	}
	if total <= h.maxTotal {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod < all[j].mod })
	for _, b := range all {
		if total <= h.maxTotal {
			return
		}
		if b.name == keep {
			continue
		}
		key, _, ok := strings.Cut(b.name, "-")
		if !ok {
			continue
		}
		if h.dropVersion(key, strings.TrimPrefix(b.name, key+"-")) {
			total -= b.size
		}
	}
}

// dropVersion removes the version whose tag name is tag from the index of
// the file with the given key, and its bytes.
func (h *Handler) dropVersion(key, tag string) bool {
	path := filepath.Join(h.dir, "files", key+".json")
	b, err := os.ReadFile(path)
	var idx fileIndex
	if err != nil || json.Unmarshal(b, &idx) != nil || fileKey(idx.File) != key {
		// No usable index: the blob is an orphan.
		return os.Remove(filepath.Join(h.dir, "blobs", key+"-"+tag)) == nil
	}
	defer h.lock(idx.File)()
	idx = h.load(idx.File)
	for i, v := range idx.Versions {
		if name, _ := tagName(v.ETag); name == tag {
			idx.Versions = append(idx.Versions[:i], idx.Versions[i+1:]...)
			h.forget(idx.File, v.ETag)
			h.save(idx)
			return true
		}
	}
	return os.Remove(filepath.Join(h.dir, "blobs", key+"-"+tag)) == nil
}
