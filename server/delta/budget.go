package delta

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
)

// DefaultMaxTotal bounds the bytes of all retained versions together: a
// client that fetches many files cannot make the origin keep copies of all
// of them. The oldest versions, whatever their file, go first.
const DefaultMaxTotal = 2 << 30

// retained is one version found in the indexes, for the budget sweep.
type retained struct {
	file string
	v    version
}

// enforceBudget forgets the oldest retained versions until their bytes fit
// in h.maxTotal, never keepTag of keepFile (the version just recorded). It
// runs after a new version is recorded, the only time the total grows, and
// holds no file's lock itself: each index is changed under its own.
func (h *Handler) enforceBudget(keepFile, keepTag string) {
	h.budgetMu.Lock()
	defer h.budgetMu.Unlock()
	all, total := h.allVersions()
	if total <= h.maxTotal {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v.Stored.Before(all[j].v.Stored) })
	for _, r := range all {
		if total <= h.maxTotal {
			return
		}
		if r.file == keepFile && r.v.ETag == keepTag {
			continue
		}
		if h.dropVersion(r.file, r.v.ETag) {
			total -= r.v.Size
		}
	}
}

// allVersions reads every file's index.
func (h *Handler) allVersions() ([]retained, int64) {
	names, _ := filepath.Glob(filepath.Join(h.dir, "files", "*.json"))
	var all []retained
	var total int64
	for _, n := range names {
		b, err := os.ReadFile(n)
		var idx fileIndex
		if err != nil || json.Unmarshal(b, &idx) != nil || fileKey(idx.File)+".json" != filepath.Base(n) {
			continue
		}
		for _, v := range idx.Versions {
			all = append(all, retained{file: idx.File, v: v})
			total += v.Size
		}
	}
	return all, total
}

// dropVersion forgets one version of a file: its index entry, its bytes
// and the deltas made from it.
func (h *Handler) dropVersion(file, tag string) bool {
	defer h.lock(file)()
	idx := h.load(file)
	for i, v := range idx.Versions {
		if v.ETag == tag {
			idx.Versions = append(idx.Versions[:i], idx.Versions[i+1:]...)
			h.forget(file, tag)
			return h.save(idx) == nil
		}
	}
	return false
}
