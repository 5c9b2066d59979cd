package delta

import "sync"

// recorded remembers, per file, the ETag whose version is known to be in
// the history, so that a GET of an unchanged file does not lock the file
// and read its index from disk: that read cost as much as the rest of a
// small GET. forget drops a file's entry.
type recorded struct {
	mu sync.Mutex
	m  map[string]string
}

// recordedMax bounds the files remembered; the map is emptied when full.
const recordedMax = 1 << 16

func (r *recorded) has(file, etag string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[file] == etag
}

func (r *recorded) set(file, etag string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil || len(r.m) >= recordedMax {
		r.m = map[string]string{}
	}
	r.m[file] = etag
}

func (r *recorded) drop(file string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, file)
}
