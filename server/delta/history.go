package delta

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/internal/ownfile"
)

// version is one retained version of a file.
type version struct {
	ETag   string    `json:"etag"`
	Size   int64     `json:"size"`
	Stored time.Time `json:"stored"`

	file string        // the file it is a version of (in memory only)
	el   *list.Element // its place in Handler.order
}

// fileIndex lists a file's retained versions, newest first. It is kept in
// memory (Handler.files) and written to files/KEY.json when it changes, so
// that a restart with the same state directory keeps the history.
type fileIndex struct {
	V        int        `json:"v"`
	File     string     `json:"file"`
	Versions []*version `json:"versions"`
}

// indexWork counts index entries read or written, recordedBytes the bytes
// copied into history: tests count work with them.
var indexWork, recordedBytes atomic.Int64

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

// tagSum returns the sha-256 an origin ETag ("sha256-" + unpadded base64url)
// is derived from.
func tagSum(tag string) ([]byte, bool) {
	name, ok := tagName(tag)
	if !ok || len(name) < 7 || name[:7] != "sha256-" {
		return nil, false
	}
	sum, err := base64.RawURLEncoding.DecodeString(name[7:])
	return sum, err == nil && len(sum) == sha256.Size
}

// sweepBlobs removes, at start, the blobs of a file whose index loaded
// that no version of it names (versions past --history, or dropped from
// the index), and copies a crash left half made. The blobs of a file whose
// index did not load (another format, a read error) are left alone.
func (h *Handler) sweepBlobs() {
	loaded, keep := map[string]bool{}, map[string]bool{}
	for _, idx := range h.files {
		loaded[fileKey(idx.File)] = true
		for _, v := range idx.Versions {
			keep[filepath.Base(h.blobPath(v.file, v.ETag))] = true
		}
	}
	dir := filepath.Join(h.dir, "blobs")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		key, _, _ := strings.Cut(e.Name(), "-")
		if strings.HasPrefix(e.Name(), ".tmp-") || loaded[key] && !keep[e.Name()] {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// parseIndex reads b as the index file name (KEY.json) of a file's
// history. Of its versions it keeps, newest first, those with an origin
// ETag (derived from sha-256), a size from 0 to maxSize and an ETag not
// listed before, at most history of them; ok is false for bytes that are
// not such an index (another format, or named for another file).
func parseIndex(b []byte, name string, history int, maxSize int64) (idx *fileIndex, ok bool) {
	idx = new(fileIndex)
	if json.Unmarshal(b, idx) != nil || idx.V != 1 || fileKey(idx.File)+".json" != name {
		return nil, false
	}
	seen := map[string]bool{}
	kept := idx.Versions[:0]
	for _, v := range idx.Versions {
		if v == nil || len(kept) == history || seen[v.ETag] || v.Size < 0 || v.Size > maxSize {
			continue
		}
		if _, ok := tagSum(v.ETag); ok {
			seen[v.ETag] = true
			v.file = idx.File
			kept = append(kept, v)
		}
	}
	idx.Versions = kept
	return idx, true
}

func (h *Handler) indexPath(file string) string {
	return filepath.Join(h.dir, "files", fileKey(file)+".json")
}

func (h *Handler) blobPath(file, tag string) string {
	name, _ := tagName(tag)
	return filepath.Join(h.dir, "blobs", fileKey(file)+"-"+name)
}

// maxIndexBytes bounds a file's history index read at start, with
// indexBytesPerVersion more for each version --history keeps (a version
// takes about 150 bytes): room for about 100,000 versions, so an index
// kept under a much larger --history is still read, and cut.
const (
	maxIndexBytes        = 16 << 20
	indexBytesPerVersion = 512
)

// indexLimit is the bound of one index file for this --history.
func (h *Handler) indexLimit() int64 {
	return maxIndexBytes + int64(min(h.history, 1<<20))*indexBytesPerVersion
}

// loadIndexes reads every file's index once, at start, into memory and
// orders all versions by when they were stored.
func (h *Handler) loadIndexes() {
	names, _ := filepath.Glob(filepath.Join(h.dir, "files", "*.json"))
	var all []*version
	for _, n := range names {
		b, err := ownfile.Read(n, h.indexLimit()) // one the server left: no link, no one else's
		if err != nil {
			continue
		}
		idx, ok := parseIndex(b, filepath.Base(n), h.history, h.maxSize)
		if !ok {
			continue
		}
		h.files[idx.File] = idx
		all = append(all, idx.Versions...)
	}
	h.sweepBlobs()
	sortByStored(all)
	for _, v := range all {
		v.el = h.order.PushBack(v)
		h.total += v.Size
		h.refs[v.ETag]++
	}
}

// find returns the first retained version of file named in tags (strong
// entity tags only: a delta base must match byte for byte).
func (h *Handler) find(file string, tags []string) (version, bool) {
	h.idxMu.Lock()
	defer h.idxMu.Unlock()
	idx := h.files[file]
	if idx == nil {
		return version{}, false
	}
	for _, t := range tags {
		for _, v := range idx.Versions {
			if v.ETag == t {
				return *v, true
			}
		}
	}
	return version{}, false
}

// has reports whether tag is a retained version of file; h.idxMu is held.
func (h *Handler) has(file, tag string) bool {
	if idx := h.files[file]; idx != nil {
		for _, v := range idx.Versions {
			if v.ETag == tag {
				return true
			}
		}
	}
	return false
}

// save writes a file's index (or removes it when empty); h.idxMu is held.
func (h *Handler) save(idx *fileIndex) error {
	indexWork.Add(int64(len(idx.Versions)))
	if len(idx.Versions) == 0 {
		delete(h.files, idx.File)
		err := os.Remove(h.indexPath(idx.File))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	b, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	return writeAtomic(h.indexPath(idx.File), func(w io.Writer) error { _, err := w.Write(b); return err })
}

// copyBlob copies size bytes of src into the version's blob, checking them
// against the ETag (derived from their sha-256) as they are copied.
func (h *Handler) copyBlob(file, tag string, size int64, src io.ReaderAt) error {
	want, _ := tagSum(tag)
	return writeAtomic(h.blobPath(file, tag), func(w io.Writer) error {
		sum := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, sum), io.NewSectionReader(src, 0, size))
		recordedBytes.Add(n)
		if err != nil {
			return err
		}
		if n != size || string(sum.Sum(nil)) != string(want) {
			return fmt.Errorf("%s changed while it was recorded", file)
		}
		return nil
	})
}

// writeAtomic writes a file through a temporary file and a rename. The
// directory is made again if it was removed while the server runs.
func writeAtomic(path string, fill func(io.Writer) error) error {
	_, err := writeAtomicID(path, fill)
	return err
}

// writeAtomicID is writeAtomic returning the ID the file has under path
// once renamed there (a rename changes its ctime), as the file written.
func writeAtomicID(path string, fill func(io.Writer) error) (fileid.ID, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fileid.ID{}, err
		}
		f, err = os.CreateTemp(filepath.Dir(path), ".tmp-*")
	}
	if err != nil {
		return fileid.ID{}, err
	}
	err = fill(f)
	if err == nil {
		// On disk before the rename: after a crash the name holds these
		// bytes or the ones before, not zeros (one sync per file kept).
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return fileid.ID{}, err
	}
	id, err := fileid.File(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fileid.ID{}, err
	}
	return id, nil
}

// openBlob opens a retained version's bytes, checking their size and
// their sha-256, which the version's ETag names: a blob changed on disk
// since it was copied (copyBlob checked it then) is no base, as a 226
// names the ETag as its Delta-Base and the client applies the delta to
// that version's bytes.
func (h *Handler) openBlob(file string, v version) (*os.File, error) {
	want, ok := tagSum(v.ETag)
	if !ok {
		return nil, fmt.Errorf("retained version %s: not a sha-256 ETag", v.ETag)
	}
	f, err := h.openSized(file, v)
	if err != nil {
		return nil, err
	}
	blobHashes.Add(1)
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		f.Close()
		return nil, err
	}
	if !bytes.Equal(sum.Sum(nil), want) {
		f.Close()
		return nil, fmt.Errorf("retained version %s of %s: its bytes changed on disk", v.ETag, file)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openSized opens a retained version's bytes, checking their size only:
// for a caller that checks their sha-256 as it reads them (OpenVersion).
func (h *Handler) openSized(file string, v version) (*os.File, error) {
	path := h.blobPath(file, v.ETag)
	f, err := ownfile.Open(path, os.O_RDONLY)
	if err != nil {
		h.refusedBlob(path, err)
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != v.Size {
		f.Close()
		return nil, errors.New("retained version has the wrong size")
	}
	return f, nil
}

// blobHashes counts the retained versions openBlob hashed (tests count
// them).
var blobHashes atomic.Int64
