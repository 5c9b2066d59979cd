package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/internal/ownfile"
)

// The variants kept in a state directory: files named IDHEX.ENC.ENCHEX in
// DIR/variants, within a disk budget.

func (vs *variantStore) openDisk(key, enc string, src io.Reader, sum []byte) (*variant, error) {
	vs.mu.Lock()
	name, known := vs.names[key]
	vs.mu.Unlock()
	if known {
		p := filepath.Join(vs.dir, name)
		f, size, err := openSized(p)
		switch {
		case err == nil:
			vs.touch(f, p)
			return diskVariant(key, name, f, size), nil
		case errors.Is(err, ownfile.ErrNotOwn):
			// Not a file the store left (a second name, a link): not
			// served, and replaced by one built anew, not an error for
			// every request.
			os.Remove(p)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
		// Removed behind the store's back: count again what is there.
		vs.mu.Lock()
		delete(vs.names, key)
		vs.diskUsed = vs.scanDisk(0)
		vs.mu.Unlock()
	}
	name, err := vs.writeDisk(key, enc, src, sum)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(vs.dir, name)
	f, size, err := openSized(p)
	if err != nil {
		return nil, err
	}
	vs.mu.Lock()
	vs.diskUsed += size
	over := vs.diskUsed > vs.diskBudget
	vs.mu.Unlock()
	if over {
		vs.pruneDisk(p)
	}
	return diskVariant(key, name, f, size), nil
}

// diskVariant is a variant file; its name ends in the hex sha-256 of its
// bytes.
func diskVariant(key, name string, f *os.File, size int64) *variant {
	sum, _ := hex.DecodeString(name[strings.LastIndexByte(name, '.')+1:])
	id, _ := fileid.File(f) // on error the zero ID: version() falls back on the size
	return &variant{key: key, content: f, size: size, sum: sum, id: id, release: func() { f.Close() }}
}

// variantName splits a variant file name IDHEX.ENC.ENCHEX into its key;
// ok is false for other names (older versions', or strangers').
func variantName(name string) (key string, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || len(name)-i-1 != 2*sha256.Size {
		return "", false
	}
	if _, err := hex.DecodeString(name[i+1:]); err != nil {
		return "", false
	}
	key = name[:i]
	id, enc, found := strings.Cut(key, ".")
	if _, err := hex.DecodeString(id); err != nil || !found || len(id) != 2*sha256.Size || enc == "" {
		return "", false
	}
	return key, true
}

// touch marks a variant file as used (its modification time orders the
// pruning), at most once a minute.
func (vs *variantStore) touch(f *os.File, p string) {
	if fi, err := f.Stat(); err == nil && time.Since(fi.ModTime()) > time.Minute {
		now := time.Now()
		os.Chtimes(p, now, now)
	}
}

// pruneDisk removes the least recently used variants, keep excepted, until
// they fit in 90% of the disk budget. An open variant stays readable by the
// requests that have it open (on Unix).
func (vs *variantStore) pruneDisk(keep string) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.diskUsed <= vs.diskBudget {
		return // another request pruned already
	}
	vs.diskUsed = vs.scanDisk(vs.diskBudget-vs.diskBudget/10, keep)
}

// scanDisk sums the sizes of the variant files, removing leftovers of
// interrupted builds and, while the total is over target (when target > 0),
// the oldest variants other than keep. It returns the bytes left.
func (vs *variantStore) scanDisk(target int64, keep ...string) int64 {
	entries, err := os.ReadDir(vs.dir)
	if err != nil {
		return 0
	}
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		p := filepath.Join(vs.dir, e.Name())
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if strings.HasPrefix(e.Name(), ".build-") {
			if time.Since(fi.ModTime()) > time.Hour {
				os.Remove(p) // left by a crash
			}
			continue
		}
		key, ok := variantName(e.Name())
		if !ok {
			os.Remove(p) // not named by both ends: made by an older version
			continue
		}
		vs.names[key] = e.Name()
		files = append(files, file{p, fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	if target <= 0 || total <= target {
		return total
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for _, f := range files {
		if total <= target {
			break
		}
		if slices.Contains(keep, f.path) {
			continue
		}
		if os.Remove(f.path) == nil {
			total -= f.size
			if key, ok := variantName(filepath.Base(f.path)); ok {
				delete(vs.names, key)
			}
		}
	}
	return total
}

// writeDisk compresses into a temporary file and renames it into place
// under its key and the sha-256 of its bytes, so concurrent builders race
// harmlessly. It returns the file's name.
func (vs *variantStore) writeDisk(key, enc string, src io.Reader, sum []byte) (string, error) {
	tmp, err := os.CreateTemp(vs.dir, ".build-*")
	if errors.Is(err, fs.ErrNotExist) {
		// Removed while the server runs: make it again.
		if err := ownfile.Mkdir(vs.dir, 0o755); err != nil {
			return "", err
		}
		tmp, err = os.CreateTemp(vs.dir, ".build-*")
	}
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	out, err := vs.compressChecked(tmp, src, enc, sum)
	if err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	name := key + "." + hex.EncodeToString(out)
	if err := os.Rename(tmp.Name(), filepath.Join(vs.dir, name)); err != nil {
		return "", err
	}
	vs.mu.Lock()
	if old, ok := vs.names[key]; ok && old != name {
		vs.removeDisk(old)
	}
	vs.names[key] = name
	vs.mu.Unlock()
	return name, nil
}

// removeDisk removes the variant file name and takes its bytes off
// diskUsed; vs.mu is held.
func (vs *variantStore) removeDisk(name string) {
	p := filepath.Join(vs.dir, name)
	fi, err := os.Lstat(p)
	if err != nil || os.Remove(p) != nil {
		return
	}
	vs.diskUsed = max(vs.diskUsed-fi.Size(), 0)
}

// openSized opens the variant file p, one the server could have left
// (ownfile.Open): a link or someone else's file put there is not served.
func openSized(p string) (*os.File, int64, error) {
	f, err := ownfile.Open(p, os.O_RDONLY)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
