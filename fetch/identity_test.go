package fetch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/fileid"
)

// editRestoringMTime overwrites b at off in path in place and puts the
// modification time back, as touch -r or cp -p would: size and mtime are
// as before, only the change time (and the bytes) differ.
func editRestoringMTime(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	before, err := fileid.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	// Let the file system's clock move on, so the edit's ctime is another
	// value (count ticks of a probe file, not a deadline).
	probe := filepath.Join(filepath.Dir(path), "probe")
	for tries := 0; tries < 10000; tries++ {
		os.WriteFile(probe, nil, 0o644)
		if id, _ := fileid.Stat(probe); id.CTime != before.CTime {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	os.Remove(probe)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, _ := fileid.Stat(path)
	if after.Size != before.Size || after.MTime != before.MTime {
		t.Fatalf("size and mtime not restored: %+v, want %+v", after, before)
	}
}

// A part edited in place with its mtime restored must not be trusted on
// the saved hash state: it is hashed again, fails Repr-Digest, and is
// fetched again in full. Before the fix the edited bytes "verified".
func TestDownloadContinueEditedPartMTimeRestored(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	editRestoringMTime(t, path+PartSuffix, 100_000, []byte("garbage")) // within the hashed prefix
	res := continueRun(t, o, path)
	if w := strings.Join(res.Verdict.Warnings, "\n"); !strings.Contains(w, "hashed again") {
		t.Errorf("warnings %q, want the part hashed again", res.Verdict.Warnings)
	}
}

// A sidecar of the earlier format (part_size, part_mtime, no identity) is
// still read; its part is hashed again rather than trusted.
func TestLoadSidecarOldFormatIsHashedAgain(t *testing.T) {
	o := newTestOrigin(t, pieceTestSize)
	path := filepath.Join(t.TempDir(), "f")
	interrupt(t, o, path, 4, firstPieces)
	b, err := os.ReadFile(path + SidecarSuffix)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path + PartSuffix)
	old := strings.Replace(string(b), `"part":`, `"part_size":`+strconv.FormatInt(st.Size(), 10)+`,"part_mtime":`+strconv.FormatInt(st.ModTime().UnixNano(), 10)+`,"old_part":`, 1)
	if old == string(b) {
		t.Fatalf("sidecar %s has no part identity", b)
	}
	os.WriteFile(path+SidecarSuffix, []byte(old), 0o644)
	res := continueRun(t, o, path)
	if w := strings.Join(res.Verdict.Warnings, "\n"); !strings.Contains(w, "hashed again") {
		t.Errorf("warnings %q, want the part hashed again", res.Verdict.Warnings)
	}
}
