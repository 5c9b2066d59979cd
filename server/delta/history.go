package delta

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hdig/hdig/server"
)

// version is one retained version of a file.
type version struct {
	ETag   string    `json:"etag"`
	Size   int64     `json:"size"`
	Stored time.Time `json:"stored"`
}

// fileIndex lists a file's retained versions, newest first.
type fileIndex struct {
	V        int       `json:"v"`
	File     string    `json:"file"`
	Versions []version `json:"versions"`
}

// fileKey names a served file's history without using its name as a path.
func fileKey(file string) string {
	sum := sha256.Sum256([]byte(file))
	return hex.EncodeToString(sum[:16])
}

// tagName turns a strong entity tag into a file-name-safe string.
func tagName(tag string) (string, bool) {
	if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		return "", false
	}
	inner := tag[1 : len(tag)-1]
	for _, c := range inner {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", false
		}
	}
	return inner, len(inner) <= 128
}

func (h *Handler) indexPath(file string) string {
	return filepath.Join(h.dir, "files", fileKey(file)+".json")
}

func (h *Handler) blobPath(file, tag string) string {
	name, _ := tagName(tag)
	return filepath.Join(h.dir, "blobs", fileKey(file)+"-"+name)
}

// load reads a file's index; a missing or unreadable index is empty.
func (h *Handler) load(file string) fileIndex {
	b, err := os.ReadFile(h.indexPath(file))
	var idx fileIndex
	if err != nil || json.Unmarshal(b, &idx) != nil || idx.V != 1 || idx.File != file {
		return fileIndex{V: 1, File: file}
	}
	return idx
}

func (h *Handler) save(idx fileIndex) error {
	b, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	return writeAtomic(h.indexPath(idx.File), func(w io.Writer) error { _, err := w.Write(b); return err })
}

// find returns the first retained version named in tags (strong entity
// tags only: a delta base must match byte for byte).
func (idx fileIndex) find(tags []string) (version, bool) {
	for _, t := range tags {
		for _, v := range idx.Versions {
			if v.ETag == t {
				return v, true
			}
		}
	}
	return version{}, false
}

// record keeps the current representation of a file as a version, if it
// is not kept already. Its bytes are checked against its ETag (the ETag is
// derived from their sha-256) as they are copied.
func (h *Handler) record(cur *server.Representation) error {
	added, err := h.add(cur)
	if added {
		// After the file's lock is released: the sweep takes other files'.
		h.enforceBudget(cur.File, cur.ETag)
	}
	return err
}

// add keeps cur as a version of its file, under the file's lock; added
// says a new version was stored.
func (h *Handler) add(cur *server.Representation) (added bool, err error) {
	if _, ok := tagName(cur.ETag); !ok || cur.Size > h.maxSize {
		return false, nil
	}
	defer h.lock(cur.File)()
	idx := h.load(cur.File)
	for _, v := range idx.Versions {
		if v.ETag == cur.ETag {
			return false, nil
		}
	}
	err = writeAtomic(h.blobPath(cur.File, cur.ETag), func(w io.Writer) error {
		sum := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, sum), io.NewSectionReader(cur.Content, 0, cur.Size))
		if err != nil {
			return err
		}
		if n != cur.Size || !strings.Contains(cur.ETag, etagSuffix(sum.Sum(nil))) {
			return fmt.Errorf("%s changed while it was recorded", cur.File)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	idx.Versions = append([]version{{ETag: cur.ETag, Size: cur.Size, Stored: time.Now().UTC()}}, idx.Versions...)
	for len(idx.Versions) > h.history {
		old := idx.Versions[len(idx.Versions)-1]
		idx.Versions = idx.Versions[:len(idx.Versions)-1]
		h.forget(cur.File, old.ETag)
	}
	return true, h.save(idx)
}

// forget deletes a version's bytes and the deltas made from it.
func (h *Handler) forget(file, tag string) {
	h.seen.drop(file)
	os.Remove(h.blobPath(file, tag))
	name, _ := tagName(tag)
	matches, _ := filepath.Glob(filepath.Join(h.dir, "deltas", fileKey(file)+"-"+name+"-*"))
	for _, m := range matches {
		os.Remove(m)
	}
}

// writeAtomic writes a file through a temporary file and a rename.
func writeAtomic(path string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// openBlob opens a retained version's bytes, checking their size.
func (h *Handler) openBlob(file string, v version) (*os.File, error) {
	f, err := os.Open(h.blobPath(file, v.ETag))
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != v.Size {
		f.Close()
		return nil, errors.New("retained version has the wrong size")
	}
	return f, nil
}
