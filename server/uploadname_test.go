package server

import (
	"net/http"
	"os"
	"testing"
)

// An upload may not create a name holding a control character (a
// terminal escape, a line break), a format character (a bidirectional
// override showing "\u202etxt.exe" as "exe.txt") or a line separator,
// nor one that is not UTF-8: such a name misleads whoever later lists,
// logs or downloads the file (found by the review). The rule is the one
// hdig get applies to a name an origin chooses (httpfield.Unprintable):
// 400, nothing stored. A name beyond ASCII is stored.
func TestPutUnprintableNameRefused(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	for _, target := range []string{"/esc%1B[31mred", "/line%0Abreak", "/tab%09x", "/x%E2%80%AEtxt.exe",
		"/zero%E2%80%8Bwidth", "/sep%E2%80%A8x", "/notutf8%FF", "/dir%0A/x", "/c1%C2%9Bx"} {
		r := upload(t, ts, "PUT", target, []byte("x"))
		if r.StatusCode != http.StatusBadRequest {
			t.Errorf("PUT %s: status %d, want 400", target, r.StatusCode)
		}
	}
	entries, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range entries {
		for _, r := range e.Name() {
			if r < ' ' || r == 0x7f || r == 0xfffd || r == 0x202e {
				t.Errorf("stored %q", e.Name())
			}
		}
	}
	wantStatus(t, upload(t, ts, "PUT", "/caf%C3%A9.txt", []byte("x")), http.StatusCreated)
	noTemps(t, dir)
}
