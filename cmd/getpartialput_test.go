package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A PUT with Content-Range (RFC 9110 §14.5, -H) sends a part of the
// representation: Content-Digest covers that content, but Repr-Digest
// would cover the whole representation, which hdig has not got. hdig sent
// the part's digest as Repr-Digest (a false claim an origin checking the
// whole would refuse) and compared the 204's Repr-Digest of the stored
// whole with the part: a mismatch, exit 1, for an upload that succeeded.
func TestGetPartialPut(t *testing.T) {
	const whole = "sha-256=:iNQmb9TmM40TuEX88olXnSCciXgjuSF9o+Fhk28DFYk=:"
	srv, seen := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Repr-Digest", whole)
		w.WriteHeader(http.StatusNoContent)
	})
	f := filepath.Join(t.TempDir(), "part")
	os.WriteFile(f, []byte("hello"), 0o644)
	code, _, errOut := runHdig(t, "get", "-T", f, "-H", "Content-Range: bytes 5-9/10", srv.URL+"/file")
	got := seen.last(t)
	if got.Header.Get("Content-Digest") == "" || got.Header.Get("Repr-Digest") != "" {
		t.Errorf("sent Content-Digest %q, Repr-Digest %q: want the part's Content-Digest alone",
			got.Header.Get("Content-Digest"), got.Header.Get("Repr-Digest"))
	}
	if code != 0 || !strings.Contains(errOut, "Repr-Digest not checked") {
		t.Errorf("exit %d, want 0 with Repr-Digest not checked:\n%s", code, errOut)
	}
}
