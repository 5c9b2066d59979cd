package server

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// A PUT with If-Match evaluates it again once its content is in (against
// an upload that replaced the file meanwhile), under the lock every
// upload takes: the current file's ETag must be known before the lock,
// not hashed under it, where a large file's hash would stall every
// upload (found by the review: the recheck read the whole file under
// the lock whenever its digests were not yet trusted, as for any file
// that has not settled). Counted: hash passes made while the lock is held.
func TestPutIfMatchNoHashUnderLock(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	must(t, os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 64<<10), 0o644))
	etag := raw(t, ts, "HEAD", "/big.bin").Header.Get("ETag")
	var atLock, underLock int64 = -1, -1
	lockedHook = func() { atLock = hashPasses.Load() }
	storedHook = func(string) { underLock = hashPasses.Load() - atLock }
	t.Cleanup(func() { lockedHook, storedHook = nil, nil })
	wantStatus(t, upload(t, ts, "PUT", "/big.bin", []byte("new\n"), "If-Match: "+etag), http.StatusNoContent)
	if atLock < 0 || underLock != 0 {
		t.Errorf("%d hash passes under the write lock, want 0", underLock)
	}
	// An If-Match that no longer matches still fails after the content.
	wantStatus(t, upload(t, ts, "PUT", "/big.bin", []byte("newer\n"), "If-Match: "+etag), http.StatusPreconditionFailed)
}
