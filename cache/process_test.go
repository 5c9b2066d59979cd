package cache

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const childEnv = "HDIG_CACHE_TEST_CHILD"

// TestProcesses runs several copies of the test binary as child processes
// that Put into one cache at once: shared URLs, shared bodies, a per-URL cap
// and a size cap that forces evictions. Afterwards every index file must be
// valid, every version must open, and no blob may be left unreferenced.
func TestProcesses(t *testing.T) {
	if v := os.Getenv(childEnv); v != "" {
		child(t, v)
		return
	}
	const n = 4
	dir := filepath.Join(t.TempDir(), "cache")
	var cmds []*exec.Cmd
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d:%s", childEnv, i, dir))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var warned []string
	c.Warnf = func(f string, a ...any) { warned = append(warned, fmt.Sprintf(f, a...)) }
	es, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		t.Fatal("no entries survived")
	}
	var total int64
	seen := map[string]bool{}
	for _, e := range es {
		if _, err := readBase(c, e); err != nil {
			t.Errorf("%s %s: %v", e.URL, e.ETag, err)
		}
		if !seen[e.SHA256] {
			total += e.Size
			seen[e.SHA256] = true
		}
	}
	if total > childMaxBytes {
		t.Errorf("blobs hold %d bytes, over the cap of %d", total, childMaxBytes)
	}
	if removed, _, err := c.GC(); removed != 0 || err != nil {
		t.Errorf("GC after the children removed %d (%v), want 0: stray blobs or temps", removed, err)
	}
	if len(warned) > 0 {
		t.Errorf("warnings: %s", strings.Join(warned, "; "))
	}
}

const childMaxBytes = 12 << 10

// child is one process of TestProcesses: 30 Puts of 0.8–3.2 KB bodies to 6
// URLs shared with the other children.
func child(t *testing.T, arg string) {
	id, dir, _ := strings.Cut(arg, ":")
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.MaxBytes = childMaxBytes
	c.PerURL = 2
	for i := range 30 {
		body := strings.Repeat(fmt.Sprintf("%s/%d.", id, i%5), 200*(1+i%4))
		url := fmt.Sprintf("http://example.test/%d", i%6)
		if _, err := c.Put(Entry{URL: url, ETag: fmt.Sprintf(`"%s-%d"`, id, i)}, strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		if vs, err := c.Versions(url); err == nil && len(vs) > 0 {
			if b, err := c.Open(vs[len(vs)-1]); err == nil {
				b.Close()
			} else if !errors.Is(err, ErrCorrupt) {
				t.Fatal(err)
			}
		}
	}
}
