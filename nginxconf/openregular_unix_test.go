//go:build unix

package nginxconf

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hdig/hdig/fileid"
)

// The walk checks a file is regular and only then opens it: a FIFO swapped
// in between (anyone who can write the directory can) was opened, and with
// no writer the open waited for ever (the old code hangs here until the
// test binary's timeout). Each open takes only a regular file, judged on
// what was opened, without waiting.
func TestOpenRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.bin")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := hash(p, false); err == nil {
		t.Errorf("hash of a FIFO: no error, want one saying it is not a regular file")
	}
	if _, ok := current(p, nil); ok {
		t.Errorf("current: a FIFO taken as a control file")
	}
	// A FIFO at the control file name of a file that is gone, which the
	// previous run listed: orphan reads it to see whether it is its own.
	root := filepath.Dir(p)
	gone := filepath.Join(root, "gone.bin")
	if err := syscall.Mkfifo(gone+ControlSuffix, 0o644); err != nil {
		t.Fatal(err)
	}
	old := map[string]Entry{uriOf(root, gone): {Zsync: fileid.ID{Size: 1, MTime: 1, CTime: 1, Dev: 1, Ino: 1}}}
	if orphan(root, gone+ControlSuffix, Options{Old: old}) {
		t.Errorf("orphan: a FIFO taken as a control file")
	}
}
