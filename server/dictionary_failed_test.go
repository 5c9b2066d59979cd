package server

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
)

// tamperDictEncodes makes every dictionary encode fail its decode check.
func tamperDictEncodes(t *testing.T) {
	dictEncodeTamper = func(b []byte) []byte {
		b = bytes.Clone(b)
		b[len(b)-3] ^= 0xFF
		return b
	}
	t.Cleanup(func() { dictEncodeTamper = nil })
}

// A dictionary coding that failed for a version of a file and a
// dictionary (each named by its sha-256) is not built again at every
// request: each build reads the file and the dictionary and encodes at
// the coders' best levels, and any client can ask again (found by the
// review: deltas remembered such failures, dictionary builds did not).
func TestDictionaryFailedBuildRemembered(t *testing.T) {
	_, ts, avail, _ := dictFixture(t)
	tamperDictEncodes(t)
	before := dictEncodes.Load()
	for range 4 {
		r := raw(t, ts, "GET", "/assets/app.js", "Accept-Encoding: dcb", "Available-Dictionary: "+avail)
		wantStatus(t, r, http.StatusOK)
		wantHeader(t, r, "Content-Encoding", "")
	}
	if n := dictEncodes.Load() - before; n != 1 {
		t.Errorf("%d dcb encodes for 4 requests of one that fails, want 1", n)
	}
}

// A failed build of a file larger than syncDictMax, made in the
// background, is not started again by each request either.
func TestDictionaryFailedBackgroundBuildRemembered(t *testing.T) {
	big1 := strings.Repeat(dictV1, 1+syncDictMax/len(dictV1))
	big2 := strings.Repeat(dictV2, 1+syncDictMax/len(dictV2))
	root := t.TempDir()
	file := filepath.Join(root, "assets", "big.js")
	must(t, os.MkdirAll(filepath.Dir(file), 0o755))
	must(t, os.WriteFile(file, []byte(big1), 0o644))
	s, ts := start(t, root, WithDelta(newMemStore(t)), WithDictionary("/assets/*"))
	raw(t, ts, "GET", "/assets/big.js")
	must(t, os.WriteFile(file, []byte(big2), 0o644))
	tamperDictEncodes(t)
	avail := dictionary.FormatAvailableDictionary(dictionary.HashOf([]byte(big1)))
	for range 3 {
		r := raw(t, ts, "GET", "/assets/big.js", "Accept-Encoding: dcz", "Available-Dictionary: "+avail)
		wantHeader(t, r, "Content-Encoding", "")
		s.gate.bg.Wait()
	}
	if s.gate.builds != 1 {
		t.Errorf("%d background builds for 3 requests of one that fails, want 1", s.gate.builds)
	}
}
