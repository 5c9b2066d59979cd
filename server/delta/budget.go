package delta

import (
	"os"
	"path/filepath"
	"sort"
	"time"
)

// DefaultMaxTotal bounds the bytes of all retained versions together: a
// client that fetches many files cannot make the origin keep copies of all
// of them. The oldest versions, whatever their file, go first.
const DefaultMaxTotal = 2 << 30

func sortByStored(vs []*version) {
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Stored.Before(vs[j].Stored) })
}

// insert records a version whose blob is in place: it goes to the front of
// its file's index and to the back of the global order. Versions past the
// file's history, then the oldest of all files past the byte budget (never
// the new one), are forgotten. Each version is inserted and forgotten once,
// and only the indexes of the files touched are written, so recording is
// O(1) amortised, however many files have history.
func (h *Handler) insert(file, tag string, size int64) error {
	h.idxMu.Lock()
	defer h.idxMu.Unlock()
	if h.has(file, tag) {
		return nil
	}
	idx := h.files[file]
	if idx == nil {
		idx = &fileIndex{V: 1, File: file}
		h.files[file] = idx
	}
	v := &version{ETag: tag, Size: size, Stored: time.Now().UTC(), file: file}
	v.el = h.order.PushBack(v)
	h.total += size
	h.refs[tag]++
	idx.Versions = append([]*version{v}, idx.Versions...)
	touched := map[*fileIndex]bool{idx: true}
	for len(idx.Versions) > h.history {
		h.drop(idx.Versions[len(idx.Versions)-1])
	}
	h.trim(v, touched)
	return h.saveAll(touched)
}

// trim forgets the oldest versions of all files, never keep, until the
// byte budget holds, and adds the indexes it changed to touched; h.idxMu
// is held.
func (h *Handler) trim(keep *version, touched map[*fileIndex]bool) {
	for el := h.order.Front(); h.total > h.maxTotal && el != nil; {
		old := el.Value.(*version)
		el = el.Next()
		if old == keep {
			continue
		}
		touched[h.files[old.file]] = true
		h.drop(old)
	}
}

// saveAll writes the indexes touched; h.idxMu is held.
func (h *Handler) saveAll(touched map[*fileIndex]bool) error {
	var err error
	for t := range touched {
		if e := h.save(t); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// drop forgets a version: its index entry, its bytes and the deltas made
// from it; h.idxMu is held and the caller saves the index.
func (h *Handler) drop(v *version) {
	idx := h.files[v.file]
	for i, x := range idx.Versions {
		if x == v {
			idx.Versions = append(idx.Versions[:i], idx.Versions[i+1:]...)
			break
		}
	}
	h.order.Remove(v.el)
	h.total -= v.Size
	os.Remove(h.blobPath(v.file, v.ETag))
	if h.refs[v.ETag]--; h.refs[v.ETag] > 0 {
		return // the same bytes are a version of another file too
	}
	delete(h.refs, v.ETag)
	if sum, ok := tagSum(v.ETag); ok {
		base := deltaPrefix(sum)
		for _, name := range h.deltasFrom[base] {
			os.Remove(filepath.Join(h.dir, "deltas", name))
		}
		delete(h.deltasFrom, base)
	}
}
