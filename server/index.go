package server

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/internal/ownfile"
	"github.com/hdig/hdig/verify"
)

// digestIndex holds the trusted sha-256 of file versions, keyed by name
// and fileid.ID (size, mtime, ctime, device, inode), so that a file's
// first request does not hash it: the background indexer (indexer.go)
// and every request that hashed a settled file fill it. With a state
// directory it is kept in STATE/digests, one line per version appended as
// it is learnt, so a restart is instant.
//
// An entry is used only for the very version it names (fileid.Same, both
// IDs strong): any write to the file changes its ctime, which no user can
// set back, so a stale entry never matches. Only digests hashed from a
// settled file whose ID was the same after the pass are recorded (the
// rule of identity.go), and the guard still checks the file's ID before
// the last byte of every response.
type digestIndex struct {
	mu   sync.Mutex
	m    map[indexKey][]byte  // sha-256 by version
	ids  map[string]fileid.ID // the version of each name in m: one per name
	path string               // "" without a state directory
	out  *os.File             // appends to path
	full bool                 // maxIndexEntries reached: nothing more is added
	// lines is the count of lines in the file at path, superseded ones
	// included: past compactAt it is rewritten, while running as at a start.
	lines int
}

type indexKey struct {
	name string
	id   fileid.ID
}

const (
	// maxIndexEntries bounds the versions indexed (about 150 bytes each
	// in memory).
	maxIndexEntries = 1 << 18
	// maxIndexLine bounds a line read from the index file.
	maxIndexLine = 8 << 10
	indexFile    = "digests"
	indexMagic   = "hdig-digests-1"
)

// openIndex loads the index of stateDir (none without one), compacting
// the file when it holds many superseded lines.
func openIndex(stateDir string) (*digestIndex, error) {
	x := &digestIndex{m: map[indexKey][]byte{}, ids: map[string]fileid.ID{}}
	if stateDir == "" {
		return x, nil
	}
	x.path = filepath.Join(stateDir, indexFile)
	lines, err := x.load()
	if err != nil {
		return nil, err
	}
	x.lines = lines
	if x.lines > x.compactAt() || lines == 0 {
		if err := x.rewrite(); err != nil {
			return nil, err
		}
	}
	x.out, err = openIndexFile(x.path, os.O_WRONLY|os.O_APPEND)
	return x, err
}

// openIndexFile opens the index file as one the server could have left
// (ownfile.Open): a symbolic link there, someone else's file or a second
// name of another file is neither trusted nor appended to.
func openIndexFile(path string, flag int) (*os.File, error) {
	f, err := ownfile.Open(path, flag)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return f, err
}

// compactAt is the number of lines past which the file is rewritten with
// the entries held only: superseded versions of a name are dropped.
func (x *digestIndex) compactAt() int { return 2*len(x.m) + 1024 }

// compact rewrites the file while the server runs; x.mu is held. On an
// error the index stops being written, and stays in memory.
func (x *digestIndex) compact() {
	x.out.Close()
	x.out = nil
	if err := x.rewrite(); err != nil {
		return
	}
	x.out, _ = openIndexFile(x.path, os.O_WRONLY|os.O_APPEND)
}

// load reads the index file; malformed lines are skipped, later lines win.
func (x *digestIndex) load() (int, error) {
	f, err := openIndexFile(x.path, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxIndexLine)
	n := 0
	for sc.Scan() {
		n++
		if n == 1 && sc.Text() != indexMagic {
			return 0, nil // another format: started afresh
		}
		if k, sum, ok := parseIndexLine(sc.Text()); ok && len(x.m) < maxIndexEntries {
			x.set(k, sum)
		}
	}
	return n, nil // a line too long ends the reading: the rest is lost, not trusted
}

// rewrite writes the entries held to a new file, renamed over the old.
func (x *digestIndex) rewrite() error {
	tmp, err := os.CreateTemp(filepath.Dir(x.path), ".digests-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	fmt.Fprintln(w, indexMagic)
	for k, sum := range x.m {
		w.WriteString(formatIndexLine(k, sum))
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	// On disk before the rename, which would otherwise replace the index
	// with zeros after a crash. Lines appended later are not synced: one
	// torn by a crash does not parse (load skips it) and is hashed again.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), x.path); err != nil {
		return err
	}
	x.lines = len(x.m) + 1
	return nil
}

// formatIndexLine is "SHA256HEX SIZE MTIME CTIME DEV INO QUOTEDNAME\n".
func formatIndexLine(k indexKey, sum []byte) string {
	id := k.id
	return fmt.Sprintf("%x %d %d %d %d %d %s\n", sum, id.Size, id.MTime, id.CTime, id.Dev, id.Ino, strconv.Quote(k.name))
}

func parseIndexLine(line string) (indexKey, []byte, bool) {
	f := strings.SplitN(line, " ", 7)
	if len(f) != 7 {
		return indexKey{}, nil, false
	}
	sum, err := hex.DecodeString(f[0])
	if err != nil || len(sum) != 32 {
		return indexKey{}, nil, false
	}
	var id fileid.ID
	var errs [6]error
	id.Size, errs[0] = strconv.ParseInt(f[1], 10, 64)
	id.MTime, errs[1] = strconv.ParseInt(f[2], 10, 64)
	id.CTime, errs[2] = strconv.ParseInt(f[3], 10, 64)
	id.Dev, errs[3] = strconv.ParseUint(f[4], 10, 64)
	id.Ino, errs[4] = strconv.ParseUint(f[5], 10, 64)
	var name string
	name, errs[5] = strconv.Unquote(f[6])
	if errors.Join(errs[:]...) != nil || !id.Strong() || name == "" {
		return indexKey{}, nil, false
	}
	return indexKey{name: name, id: id}, sum, true
}

// lookup returns the sha-256 of version id of name, if indexed.
func (x *digestIndex) lookup(name string, id fileid.ID) ([]byte, bool) {
	if !id.Strong() {
		return nil, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	sum, ok := x.m[indexKey{name, id}]
	return sum, ok
}

// add records the trusted sha-256 of version id of name.
func (x *digestIndex) add(name string, id fileid.ID, sum []byte) {
	if !id.Strong() || len(sum) != 32 {
		return
	}
	k := indexKey{name, id}
	x.mu.Lock()
	defer x.mu.Unlock()
	if old, ok := x.m[k]; ok && string(old) == string(sum) || x.full {
		return
	}
	if len(x.m) >= maxIndexEntries {
		x.full = true
		return
	}
	x.set(k, append([]byte(nil), sum...))
	if x.out != nil {
		x.out.WriteString(formatIndexLine(k, sum))
		if x.lines++; x.lines > x.compactAt() {
			x.compact()
		}
	}
}

// set records sum for k, forgetting the earlier version of k.name: a name
// has one current version, and the lines of the others are dropped at
// the next compaction.
func (x *digestIndex) set(k indexKey, sum []byte) {
	if old, ok := x.ids[k.name]; ok && old != k.id {
		delete(x.m, indexKey{k.name, old})
	}
	x.ids[k.name] = k.id
	x.m[k] = sum
}

// seed gives an empty cache entry the indexed sha-256 of its version.
func (x *digestIndex) seed(k fileKey, e *entry) {
	if k.enc != "" || !e.empty() {
		return
	}
	if sum, ok := x.lookup(k.name, k.id); ok {
		e.put([]verify.Digest{{Algorithm: sha256Alg.Key, Value: sum}}, true)
	}
}

func (x *digestIndex) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.out != nil {
		x.out.Close()
		x.out = nil
	}
}
