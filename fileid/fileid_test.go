package fileid

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// An in-place edit with the modification time put back is still a new
// version: size and mtime match, ctime does not.
func TestEditWithRestoredMTime(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no change time on", runtime.GOOS)
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello world"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	a, err := Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Strong() {
		t.Fatalf("ID %+v is weak on %s", a, runtime.GOOS)
	}
	b, _ := Stat(p)
	if !Same(a, b) {
		t.Fatalf("unchanged file: %+v != %+v", a, b)
	}
	// Wait until the clock has moved on at the file system's granularity, so
	// the edit's ctime is a different value (count ticks, not a deadline).
	for tries := 0; ; tries++ {
		probe := filepath.Join(filepath.Dir(p), "probe")
		_ = os.WriteFile(probe, nil, 0o644)
		pid, _ := Stat(probe)
		if pid.CTime != a.CTime || tries > 1000 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("HELL"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	c, _ := Stat(p)
	if c.Size != a.Size || c.MTime != a.MTime {
		t.Fatalf("size/mtime not restored: %+v vs %+v", c, a)
	}
	if Same(a, c) {
		t.Fatalf("edited file with restored mtime counts as the same version: %+v", c)
	}
}

func TestWeakIDsAreNeverSame(t *testing.T) {
	w := ID{Size: 1, MTime: 2}
	if Same(w, w) {
		t.Fatal("weak IDs compared equal")
	}
	if !(ID{}).IsZero() || w.IsZero() {
		t.Fatal("IsZero")
	}
}
