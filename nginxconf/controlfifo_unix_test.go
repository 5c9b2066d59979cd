//go:build unix

package nginxconf

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hdig/hdig/zsync"
)

// TestIndexControlNameFIFO: a FIFO at FILE.zsync (anyone who can write
// the directory can make one) is not a control file to keep: index read
// it to compare, and its open waited for a writer forever (SIGTERM too).
// It is replaced by the control file, as any other non-current one.
func TestIndexControlNameFIFO(t *testing.T) {
	www := filepath.Join(t.TempDir(), "www")
	data := bytes.Repeat([]byte("abc"), 5000)
	writeTree(t, www, map[string][]byte{"a.bin": data})
	if err := syscall.Mkfifo(filepath.Join(www, "a.bin.zsync"), 0o644); err != nil {
		t.Skip(err)
	}
	if _, _, err := Index(www, Options{Warnf: t.Logf}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(www, "a.bin.zsync"))
	if c, err := zsync.Read(bytes.NewReader(got)); err != nil || c.Length != int64(len(data)) {
		t.Errorf("a.bin.zsync is not a.bin's control file (%v, %v)", c, err)
	}
}
