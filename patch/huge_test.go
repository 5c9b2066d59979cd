package patch

import "testing"

// TestHugePagesOffByDefault: a long-lived process that encodes (hdig
// serve) never advises huge pages; only a command that turns HugePages on
// does.
func TestHugePagesOffByDefault(t *testing.T) {
	if HugePages.Load() {
		t.Fatal("HugePages on by default")
	}
	before := advised.Load()
	newBytes(8 << 20)
	newTable(2 << 20)
	if got := advised.Load() - before; got != 0 {
		t.Fatalf("%d bytes advised with HugePages off, want 0", got)
	}
	HugePages.Store(true)
	defer HugePages.Store(false)
	newBytes(8 << 20)
	newTable(2 << 20)
	newBytes(hugeMin - 1)
	if got, want := advised.Load()-before, int64(16<<20); got != want {
		t.Fatalf("%d bytes advised with HugePages on, want %d", got, want)
	}
}
