package fetch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestSidecarReasonOneLine: the reason a sidecar is not trusted is printed
// as one line; a sidecar's URL or algorithm of any length or bytes must
// not make it several lines or a page long.
func TestSidecarReasonOneLine(t *testing.T) {
	dir := t.TempDir()
	good := sidecar{Version: sidecarVersion, URL: "http://x/f", Total: 100, Algorithms: []string{"sha-256"}, Done: [][2]int64{{0, 20}}}
	for _, edit := range []func(*sidecar){
		func(s *sidecar) { s.URL = "http://x/f\nwarning: forged line" },
		func(s *sidecar) { s.URL = strings.Repeat("u", 100000) },
		func(s *sidecar) { s.Algorithms = []string{strings.Repeat("a", 100000)} },
	} {
		sc := good
		edit(&sc)
		b, _ := json.Marshal(sc)
		p := filepath.Join(dir, "s")
		os.WriteFile(p, b, 0o644)
		got, why := loadSidecar(p, "http://x/f", "", 50)
		if got != nil || why == "" || strings.ContainsAny(why, "\n\r") || len(why) > 200 {
			t.Errorf("loadSidecar = %v, reason %.300q: want one short line", got != nil, why)
		}
	}
}

// FuzzSidecar reads any bytes as the sidecar of a 50-byte part: it is
// refused with a one-line reason, or every span, piece and count in it is
// within the part and the bounds, and saved again it reads back the same.
func FuzzSidecar(f *testing.F) {
	const url, size = "http://x/f", 50
	good := sidecar{Version: sidecarVersion, URL: url, ETag: `"e"`, Total: 100, Algorithms: []string{"sha-256", "crc32c"}, Hashed: 10,
		HashState: []byte("hdig-hasher\x01"), Done: [][2]int64{{0, 20}, {40, 50}},
		Pieces: []sidecarPiece{{Start: 40, End: 50, Digest: "crc32c=:AAAAAA==:"}}}
	for _, edit := range []func(*sidecar){
		func(*sidecar) {},
		func(s *sidecar) { s.Total = -1 },
		func(s *sidecar) { s.Done = [][2]int64{{0, 20}, {10, 30}} },
		func(s *sidecar) { s.Pieces = []sidecarPiece{{Start: -5, End: 10}} },
		func(s *sidecar) { s.Algorithms = []string{"sha-3"} },
		func(s *sidecar) { s.Hashed = 1 << 62 },
		func(s *sidecar) { s.ContentDigest = "sha-256=:AAAA:, =bad" },
		func(s *sidecar) {
			s.ETag, s.LastModified, s.LastModifiedIfRange = "", "Sun, 09 Sep 2001 01:46:40 GMT", true
		},
		func(s *sidecar) { s.LastModified = "Sunday" },
		func(s *sidecar) { s.Version = 2 },
	} {
		sc := good
		edit(&sc)
		b, _ := json.Marshal(sc)
		f.Add(b)
	}
	f.Add([]byte("{"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "s")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		sc, why := loadSidecar(p, url, "", size)
		if sc == nil {
			if why == "" || strings.ContainsAny(why, "\n\r") || len(why) > 200 {
				t.Fatalf("refused with reason %.300q: want one short line", why)
			}
			return
		}
		checkSidecarBounds(t, sc, size)
		b, err := json.Marshal(sc)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		again, why := loadSidecar(p, url, "", size)
		if again == nil || !reflect.DeepEqual(again, sc) {
			t.Fatalf("sidecar %+v saved again reads back as %+v (%s)", sc, again, why)
		}
	})
}

// checkSidecarBounds checks what loadSidecar promises of a sidecar it
// accepted for a part of size bytes.
func checkSidecarBounds(t *testing.T, sc *sidecar, size int64) {
	t.Helper()
	if len(sc.Done) > maxSidecarSpans || len(sc.Pieces) > maxSidecarPieces || len(sc.Algorithms) > len(verify.Algorithms) {
		t.Fatalf("%d spans, %d pieces, %d algorithms", len(sc.Done), len(sc.Pieces), len(sc.Algorithms))
	}
	at := int64(0)
	for _, s := range sc.Done {
		if s[0] < at || s[1] <= s[0] || s[1] > size || sc.Total >= 0 && s[1] > sc.Total {
			t.Fatalf("span %v beyond the part or out of order", s)
		}
		at = s[1]
	}
	for _, p := range sc.Pieces {
		if p.Start < 0 || p.End <= p.Start || p.End > size {
			t.Fatalf("piece %+v beyond the part", p)
		}
	}
	if sc.Hashed < 0 || sc.Hashed > size || sc.Total < -1 || sc.Total >= 0 && size > sc.Total {
		t.Fatalf("hashed %d, length %d for a %d-byte part", sc.Hashed, sc.Total, size)
	}
	if got := sc.algorithms(); len(got) != len(sc.Algorithms) {
		t.Fatalf("algorithms %q give %d", sc.Algorithms, len(got))
	}
}
