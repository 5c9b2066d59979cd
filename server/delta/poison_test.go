package delta

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/server"
)

func etagOf(b []byte) string {
	sum := sha256.Sum256(b)
	return `"sha256-` + base64.RawURLEncoding.EncodeToString(sum[:]) + `"`
}

// A current representation whose bytes are not the ones its ETag names
// (stale digests over an edited file) gets no delta, and nothing is
// stored under its ETag: once the named version is back, its delta
// rebuilds it, also after a restart with the same state directory.
func TestDeltaNotPoisonedByStaleETag(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	a, b := text(3000, 1), text(3000, 2)
	c := text(3000, 3)
	if len(b) != len(c) {
		t.Fatalf("fixture: %d vs %d bytes", len(b), len(c))
	}
	o.put(a)
	ra, _ := o.get(nil)
	ea := ra.Header.Get("ETag")
	hdr := map[string]string{"A-IM": "vcdiff", "If-None-Match": ea}

	// The bytes are c, the ETag says b.
	stale := &server.Representation{Path: "/a.txt", File: "a.txt", ContentType: "text/plain", ETag: etagOf(b),
		Size: int64(len(c)), Content: bytes.NewReader(c)}
	req := httptest.NewRequest("GET", "/a.txt", nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	if ok, _ := o.h.ServeDelta(rec, req, stale, stale.Size); ok && rec.Code == http.StatusIMUsed {
		got := rebuild(t, a, "vcdiff", rec.Body.Bytes())
		t.Errorf("226 under ETag b rebuilds %d bytes equal to c: %v", len(got), bytes.Equal(got, c))
	}

	o.put(b)
	check := func(h *Handler, url string) {
		t.Helper()
		resp, body := o.get(hdr)
		if resp.StatusCode != http.StatusIMUsed {
			t.Fatalf("status %d, want 226", resp.StatusCode)
		}
		if got := rebuild(t, a, "vcdiff", body); !bytes.Equal(got, b) {
			t.Fatalf("the 226 for b rebuilds other bytes (c: %v)", bytes.Equal(got, c))
		}
	}
	check(o.h, o.url)
	// A restart with the same state directory.
	h2, err := New(o.h.dir, DefaultHistory, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(o.dir, server.WithDelta(h2))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer func() { ts.Close(); srv.Close() }()
	o.url = ts.URL + "/a.txt"
	check(h2, o.url)
}

// Deltas kept by an older version (keyed by ETag, unchecked) are removed
// at start.
func TestOldDeltasRemoved(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(filepath.Join(state, "deltas"), 0o700); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(state, "deltas", "0123456789abcdef0123456789abcdef-sha256-AAA-sha256-BBB.vcdiff")
	if err := os.WriteFile(old, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(state, DefaultHistory, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("an old-format delta was kept")
	}
}

// A kept version whose blob no longer has the bytes its ETag names (the
// state directory changed behind the server: a disk error, another
// process) is no delta base: a 226 with Delta-Base naming the client's
// version must rebuild the current one from that version's bytes.
func TestDeltaBaseBlobChanged(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	a, b := text(3000, 1), text(3000, 2)
	o.put(a)
	ra, _ := o.get(nil)
	ea := ra.Header.Get("ETag")
	o.h.Wait()
	blobs, err := filepath.Glob(filepath.Join(o.h.StateDir(), "blobs", "*"))
	if err != nil || len(blobs) != 1 {
		t.Fatalf("blobs %v (%v): want one", blobs, err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The same size, other bytes: those of the next version, which a
	// delta copies from where a has other bytes.
	other := append(append([]byte(nil), b...), make([]byte, len(a))...)[:len(a)]
	must(os.WriteFile(blobs[0], other, 0o600))
	o.put(b)
	resp, body := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": ea})
	if resp.StatusCode != http.StatusIMUsed {
		if !bytes.Equal(body, b) {
			t.Fatalf("status %d: want the current version", resp.StatusCode)
		}
		return
	}
	var out bytes.Buffer
	err = patch.DecodeVCDIFF(bytes.NewReader(a), int64(len(a)), bytes.NewReader(body), &out)
	if err != nil || !bytes.Equal(out.Bytes(), b) {
		t.Fatalf("226 with Delta-Base %s does not rebuild the current version from it (%v)", resp.Header.Get("Delta-Base"), err)
	}
}

// A delta kept in the state directory is served by its name (the sha-256
// of both ends); bytes under that name that do not rebuild the target (a
// crash before they reached the disk, a disk error) are not sent as a 226.
func TestDeltaFileChangedOnDisk(t *testing.T) {
	o := newOrigin(t, DefaultHistory, server.WithSettle(0)) // trusted: no check per request
	a, b := text(3000, 1), text(3000, 2)
	o.put(a)
	ra, _ := o.get(nil)
	ea := ra.Header.Get("ETag")
	o.h.Wait()
	o.put(b)
	hdr := map[string]string{"A-IM": "vcdiff", "If-None-Match": ea}
	if resp, _ := o.get(hdr); resp.StatusCode != http.StatusIMUsed {
		t.Fatalf("status %d, want 226", resp.StatusCode)
	}
	o.h.Wait()
	deltas, err := filepath.Glob(filepath.Join(o.h.StateDir(), "deltas", "*"))
	if err != nil || len(deltas) == 0 {
		t.Fatalf("deltas %v (%v): want some", deltas, err)
	}
	for _, p := range deltas {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, fi.Size()), 0o600); err != nil { // zeros, as after a crash
			t.Fatal(err)
		}
	}
	for range 2 {
		resp, body := o.get(hdr)
		if resp.StatusCode == http.StatusIMUsed {
			var out bytes.Buffer
			err := patch.DecodeVCDIFF(bytes.NewReader(a), int64(len(a)), bytes.NewReader(body), &out)
			if err != nil || !bytes.Equal(out.Bytes(), b) {
				t.Fatalf("226 does not rebuild the current version from its Delta-Base (%v)", err)
			}
		} else if !bytes.Equal(body, b) {
			t.Fatalf("status %d: want the current version", resp.StatusCode)
		}
	}
}

// The delta sent is the file checkOnce checked: a file put under its name
// after the check (another process, a second writer) is not sent in its
// stead, nor with the checked file's Content-Length; both when the check
// reads the delta and when it was read for an earlier request.
func TestDeltaFileReplacedAfterCheck(t *testing.T) {
	for _, remembered := range []bool{false, true} {
		o := newOrigin(t, DefaultHistory, server.WithSettle(0))
		a, b := text(3000, 1), text(3000, 2)
		o.put(a)
		ra, _ := o.get(nil)
		ea := ra.Header.Get("ETag")
		o.h.Wait()
		o.put(b)
		hdr := map[string]string{"A-IM": "vcdiff", "If-None-Match": ea}
		if remembered {
			if resp, _ := o.get(hdr); resp.StatusCode != http.StatusIMUsed {
				t.Fatalf("status %d, want 226", resp.StatusCode)
			}
			o.h.Wait()
		}
		replaced := 0
		sendHook = func(path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Error(err)
				return
			}
			tmp := path + ".other"
			if err := os.WriteFile(tmp, make([]byte, fi.Size()+7), 0o600); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Error(err)
				return
			}
			replaced++
		}
		resp, body := o.get(hdr)
		sendHook = nil
		if resp.StatusCode != http.StatusIMUsed || replaced != 1 {
			t.Fatalf("remembered %v: status %d, delta replaced %d times: want 226, once", remembered, resp.StatusCode, replaced)
		}
		var out bytes.Buffer
		err := patch.DecodeVCDIFF(bytes.NewReader(a), int64(len(a)), bytes.NewReader(body), &out)
		if err != nil || !bytes.Equal(out.Bytes(), b) {
			t.Fatalf("remembered %v: the 226 sent is not the delta checked (%v)", remembered, err)
		}
		if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
			t.Fatalf("remembered %v: Content-Length %s for a %d-byte body", remembered, cl, len(body))
		}
		o.h.Wait()
	}
}

// A delta is checked once per file on disk: the one deltaFile has just
// made and checked (rebuilt to the target) is not rebuilt again, with its
// base hashed again, by the checkOnce of the 226 that sends it.
func TestDeltaCheckedOncePerBuild(t *testing.T) {
	o := newOrigin(t, DefaultHistory, server.WithSettle(0)) // trusted: no check per request
	a, b := text(3000, 1), text(3000, 2)
	o.put(a)
	ra, _ := o.get(nil)
	ea := ra.Header.Get("ETag")
	o.h.Wait()
	o.put(b)
	hdr := map[string]string{"A-IM": "vcdiff", "If-None-Match": ea}
	before := rebuildWork.Load()
	for range 2 {
		if resp, _ := o.get(hdr); resp.StatusCode != http.StatusIMUsed {
			t.Fatalf("status %d, want 226", resp.StatusCode)
		}
	}
	o.h.Wait()
	if n := rebuildWork.Load() - before; n != 1 {
		t.Fatalf("the delta was rebuilt %d times for one build and two 226s: want 1", n)
	}
}

// OpenVersion leaves the sha-256 of the kept version to its caller, which
// hashes the bytes it reads (the server's dictionary read, within its
// limit): the blob is not hashed whole a first time before.
func TestOpenVersionHashesNothing(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	a := text(3000, 1)
	o.put(a)
	o.get(nil)
	o.h.Wait()
	sum := sha256.Sum256(a)
	before := blobHashes.Load()
	f, size, err := o.h.OpenVersion("a.txt", sum[:])
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if size != int64(len(a)) {
		t.Fatalf("size %d, want %d", size, len(a))
	}
	if n := blobHashes.Load() - before; n != 0 {
		t.Fatalf("OpenVersion hashed the kept version %d times before its caller's own check: want 0", n)
	}
}
