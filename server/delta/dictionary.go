package delta

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"sort"

	"github.com/hdig/hdig/server"
)

// The history is also where Compression Dictionary Transport (RFC 9842)
// finds the dictionary a client names: a version the server offered with
// Use-As-Dictionary is kept here under its sha-256 (its ETag), so the
// version a client holds encodes the next one (server.DictionaryStore).

// tagOf is the ETag the origin derives from a sha-256.
func tagOf(sum []byte) string {
	return `"sha256-` + base64.RawURLEncoding.EncodeToString(sum) + `"`
}

// KeepVersion keeps cur (the identity of a file) as a version of its file,
// waiting for the copy, and reports whether it is kept: a dictionary is
// offered only once the server can use it.
func (h *Handler) KeepVersion(ctx context.Context, cur *server.Representation) bool {
	if wait := h.recordAsync(ctx, cur); wait != nil {
		wait()
	}
	h.idxMu.Lock()
	defer h.idxMu.Unlock()
	return h.has(cur.File, cur.ETag)
}

// FilesWithVersion lists, sorted, the files a version whose sha-256 is sum
// is kept for.
func (h *Handler) FilesWithVersion(sum []byte) []string {
	tag := tagOf(sum)
	h.idxMu.Lock()
	defer h.idxMu.Unlock()
	if h.refs[tag] == 0 {
		return nil
	}
	var files []string
	for file := range h.files {
		if h.has(file, tag) {
			files = append(files, file)
		}
	}
	sort.Strings(files)
	return files
}

// OpenVersion opens the kept version of file whose sha-256 is sum and
// returns its size. The caller checks the bytes' sha-256.
func (h *Handler) OpenVersion(file string, sum []byte) (*os.File, int64, error) {
	v, ok := h.find(file, []string{tagOf(sum)})
	if !ok {
		return nil, 0, errors.New("no such version kept")
	}
	f, err := h.openSized(file, v) // the caller hashes what it reads
	if err != nil {
		return nil, 0, err
	}
	return f, v.Size, nil
}
