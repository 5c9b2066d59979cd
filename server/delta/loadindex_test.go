package delta

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// originTag is the ETag the origin gives bytes b ("sha256-" + base64url).
func originTag(b string) string {
	sum := sha256.Sum256([]byte(b))
	return `"sha256-` + base64.RawURLEncoding.EncodeToString(sum[:]) + `"`
}

// writeIndex writes a history index for file into state as the Handler
// would, from any versions.
func writeIndex(t *testing.T, state, file string, vs []*version, pad int) {
	t.Helper()
	b, err := json.Marshal(fileIndex{V: 1, File: file, Versions: vs})
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, bytes.Repeat([]byte(" "), pad)...)
	dir := filepath.Join(state, "files")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fileKey(file)+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A history index read at start is bounded like every decoder of bytes on
// disk: a file over its bound (for --history 2) is not read, and of the versions listed
// only the newest --history with an origin ETag, a size up to the largest
// file kept, and an ETag not listed before are kept.
func TestLoadIndexBounded(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(i int) time.Time { return t0.Add(-time.Duration(i) * time.Hour) } // newest first
	state := t.TempDir()
	writeIndex(t, state, "a.txt", []*version{
		{ETag: originTag("v5"), Size: 5, Stored: at(0)},
		{ETag: originTag("v5"), Size: 5, Stored: at(1)},        // listed twice
		{ETag: originTag("big"), Size: 1 << 40, Stored: at(2)}, // larger than any file kept
		{ETag: `"weak-or-foreign"`, Size: 1, Stored: at(3)},    // not an origin ETag
		{ETag: originTag("v4"), Size: 4, Stored: at(4)},
		{ETag: originTag("v3"), Size: 3, Stored: at(5)}, // past --history 2
	}, 0)
	writeIndex(t, state, "b.txt", []*version{{ETag: originTag("b"), Size: 1, Stored: t0}}, maxIndexBytes+2*indexBytesPerVersion) // padded over the bound
	blobs := filepath.Join(state, "blobs")
	blob := func(file, b string) string {
		name, _ := tagName(originTag(b))
		return filepath.Join(blobs, fileKey(file)+"-"+name)
	}
	for _, p := range []string{blob("a.txt", "v5"), blob("a.txt", "v4"), blob("a.txt", "v3"), blob("b.txt", "b"), filepath.Join(blobs, ".tmp-1")} {
		if err := os.MkdirAll(blobs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(state, 2, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := namesIn(t, blobs); len(got) != 3 {
		t.Errorf("blobs %q kept, want the two of a.txt's versions kept and b.txt's (its index was not read: left alone)", got)
	}
	var got []string
	if idx := h.files["a.txt"]; idx != nil {
		for _, v := range idx.Versions {
			got = append(got, fmt.Sprintf("%s %d", v.ETag, v.Size))
		}
	}
	want := []string{originTag("v5") + " 5", originTag("v4") + " 4"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("a.txt's versions: got %q, want %q", got, want)
	}
	if h.files["b.txt"] != nil {
		t.Errorf("b.txt's index of over %d bytes was read: %d versions", maxIndexBytes+2*indexBytesPerVersion, len(h.files["b.txt"].Versions))
	}
	if h.total != 9 || h.order.Len() != 2 || len(h.refs) != 2 {
		t.Errorf("total %d bytes, %d versions in order, %d ETags referenced; want 9, 2, 2", h.total, h.order.Len(), len(h.refs))
	}
}

// A history kept under a larger budget is cut to a smaller one when it is
// set (hdig serve --history-max after a restart): the oldest versions and
// their blobs go at once, not at the next version recorded.
func TestSetMaxTotalCutsLoadedHistory(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	state := t.TempDir()
	blobs := filepath.Join(state, "blobs")
	if err := os.MkdirAll(blobs, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, file := range []string{"a.txt", "b.txt", "c.txt"} {
		body := file + " version"
		writeIndex(t, state, file, []*version{{ETag: originTag(body), Size: int64(len(body)), Stored: t0.Add(time.Duration(i) * time.Hour)}}, 0)
		name, _ := tagName(originTag(body))
		if err := os.WriteFile(filepath.Join(blobs, fileKey(file)+"-"+name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(state, DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxTotal(2 * int64(len("a.txt version"))) // room for two
	if h.total != 26 || h.files["a.txt"] != nil || h.files["c.txt"] == nil {
		t.Errorf("after SetMaxTotal: %d bytes kept, a.txt kept %v, c.txt kept %v; want 26, the oldest (a.txt) gone",
			h.total, h.files["a.txt"] != nil, h.files["c.txt"] != nil)
	}
	if got := namesIn(t, blobs); len(got) != 2 {
		t.Errorf("blobs %q kept, want 2", got)
	}
	if _, err := os.Stat(filepath.Join(state, "files", fileKey("a.txt")+".json")); !os.IsNotExist(err) {
		t.Errorf("a.txt's index is still on disk (%v)", err)
	}
}

// An index kept under a much larger --history is read and cut to the
// newest versions after a restart with a smaller one; their blobs stay
// (found by a second review: past the old bound the whole history went).
func TestSmallerHistoryCutsIndex(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	state := t.TempDir()
	blobs := filepath.Join(state, "blobs")
	if err := os.MkdirAll(blobs, 0o700); err != nil {
		t.Fatal(err)
	}
	const n = 12000 // kept under --history 12000
	var vs []*version
	for i := n - 1; i >= 0; i-- { // newest first
		body := fmt.Sprint("version ", i)
		vs = append(vs, &version{ETag: originTag(body), Size: int64(len(body)), Stored: t0.Add(time.Duration(i) * time.Second)})
		if i >= n-DefaultHistory {
			name, _ := tagName(originTag(body))
			if err := os.WriteFile(filepath.Join(blobs, fileKey("a.txt")+"-"+name), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeIndex(t, state, "a.txt", vs, 0)
	fi, _ := os.Stat(filepath.Join(state, "files", fileKey("a.txt")+".json"))
	t.Logf("index of %d versions: %d bytes", n, fi.Size())
	h, err := New(state, DefaultHistory, 0, nil) // restarted with the default --history
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	if idx := h.files["a.txt"]; idx != nil {
		got = len(idx.Versions)
	}
	if got != DefaultHistory {
		t.Errorf("a.txt keeps %d versions after a restart with --history %d, want the newest %d", got, DefaultHistory, DefaultHistory)
	}
	if b := namesIn(t, blobs); len(b) != DefaultHistory {
		t.Errorf("%d blobs left, want the newest %d (sweepBlobs deleted them)", len(b), DefaultHistory)
	}
}

// insert keeps the version just recorded even when it alone is over the
// byte budget; SetMaxTotal, called at every start, keeps the newest too, so
// a restart with unchanged settings loses nothing (found by a second
// review).
func TestSetMaxTotalKeepsNewest(t *testing.T) {
	state := t.TempDir()
	h, err := New(state, DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxTotal(10)
	body := "a version of twenty+ bytes"
	tag := originTag(body)
	name, _ := tagName(tag)
	if err := os.WriteFile(filepath.Join(state, "blobs", fileKey("a.txt")+"-"+name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.insert("a.txt", tag, int64(len(body))); err != nil {
		t.Fatal(err)
	}
	if h.files["a.txt"] == nil {
		t.Fatal("insert did not keep the version")
	}
	h.Close()
	h2, err := New(state, DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h2.files["a.txt"] == nil {
		t.Fatal("not loaded")
	}
	h2.SetMaxTotal(10) // same --history-max as before the restart
	if h2.files["a.txt"] == nil {
		t.Errorf("the version the running server kept under --history-max 10 is dropped at restart with the same setting")
	}
}

// The blobs of a file whose index is not read (here a format this build
// does not read, as after a downgrade) are left alone at start (found by a
// second review: sweepBlobs removed them).
func TestSkippedIndexKeepsBlobs(t *testing.T) {
	state := t.TempDir()
	for _, sub := range []string{"files", "blobs"} {
		os.MkdirAll(filepath.Join(state, sub), 0o700)
	}
	body := "a version"
	tag := originTag(body)
	idx := fmt.Sprintf(`{"V":2,"File":"a.txt","Versions":[{"ETag":%q,"Size":%d,"Stored":"2026-01-02T03:04:05Z"}]}`, tag, len(body))
	os.WriteFile(filepath.Join(state, "files", fileKey("a.txt")+".json"), []byte(idx), 0o600)
	name, _ := tagName(tag)
	blob := filepath.Join(state, "blobs", fileKey("a.txt")+"-"+name)
	os.WriteFile(blob, []byte(body), 0o600)
	if _, err := New(state, DefaultHistory, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blob); err != nil {
		t.Errorf("the blob of a version whose index was not read is deleted at start: %v", err)
	}
}
