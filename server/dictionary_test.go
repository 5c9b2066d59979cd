package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/dictionary"
)

// memStore is a DictionaryStore (and a DeltaHandler that makes no deltas)
// keeping versions in a temporary directory.
type memStore struct {
	dir  string
	mu   sync.Mutex
	kept map[string]map[string]string // file → sha-256 (raw) → blob path
}

func newMemStore(t *testing.T) *memStore {
	return &memStore{dir: t.TempDir(), kept: map[string]map[string]string{}}
}

func (m *memStore) ServeDelta(http.ResponseWriter, *http.Request, *Representation, int64) (bool, error) {
	return false, nil
}

func (m *memStore) KeepVersion(ctx context.Context, cur *Representation) bool {
	f, err := cur.Reopen()
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, cur.Size)
	if _, err := f.ReadAt(b, 0); err != nil && cur.Size > 0 {
		return false
	}
	sum := sha256.Sum256(b)
	p := filepath.Join(m.dir, base64.RawURLEncoding.EncodeToString(sum[:]))
	if os.WriteFile(p, b, 0o600) != nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.kept[cur.File] == nil {
		m.kept[cur.File] = map[string]string{}
	}
	m.kept[cur.File][string(sum[:])] = p
	return true
}

func (m *memStore) FilesWithVersion(sum []byte) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for file, vs := range m.kept {
		if _, ok := vs[string(sum)]; ok {
			out = append(out, file)
		}
	}
	return out
}

func (m *memStore) OpenVersion(file string, sum []byte) (*os.File, int64, error) {
	m.mu.Lock()
	p, ok := m.kept[file][string(sum)]
	m.mu.Unlock()
	if !ok {
		return nil, 0, os.ErrNotExist
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// Two versions of a script: v2 shares most of its text with v1.
var (
	dictV1 = strings.Repeat("function add(a, b) { return a + b; }\n// version one of the library\n", 300) + "export default add;\n"
	dictV2 = strings.Repeat("function add(a, b) { return a + b; }\n// version two of the library\n", 300) + "export { add };\n"
)

// dictFixture serves assets/app.js (v1) and other/app.js with
// --dictionary /assets/*, fetches v1 (so it is kept), then replaces it
// with v2. It returns the server, v1's Available-Dictionary value and the
// root.
func dictFixture(t *testing.T, opts ...Option) (*Server, *httptest.Server, string, string) {
	t.Helper()
	root := t.TempDir()
	for _, name := range []string{"assets/app.js", "assets/lib.js", "other/app.js"} {
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, name), []byte(dictV1), 0o644))
	}
	store := newMemStore(t)
	s, ts := start(t, root, append([]Option{WithDelta(store), WithDictionary("/assets/*")}, opts...)...)
	r := raw(t, ts, "GET", "/assets/app.js", "Accept-Encoding: gzip, br")
	wantStatus(t, r, http.StatusOK)
	wantHeader(t, r, "Use-As-Dictionary", `match="/assets/*", match-dest=(), id="/assets/app.js", type=raw`)
	if v := strings.Join(r.Header.Values("Vary"), ", "); v != "Accept-Encoding, Available-Dictionary" {
		t.Fatalf("Vary = %q, want Accept-Encoding, Available-Dictionary", v)
	}
	if got := r.Header.Get("Content-Encoding"); got != "br" {
		t.Fatalf("v1 Content-Encoding = %q, want br (a dictionary is kept whatever the coding)", got)
	}
	must(t, os.WriteFile(filepath.Join(root, "assets/app.js"), []byte(dictV2), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "assets/lib.js"), []byte(dictV2), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "other/app.js"), []byte(dictV2), 0o644))
	return s, ts, dictionary.FormatAvailableDictionary(dictionary.HashOf([]byte(dictV1))), root
}

func TestDictionaryNegotiation(t *testing.T) {
	_, ts, avail, _ := dictFixture(t)
	v1 := []byte(dictV1)
	dcb, err := dictionary.Encode("dcb", []byte(dictV2), v1)
	must(t, err)
	dcz, err := dictionary.Encode("dcz", []byte(dictV2), v1)
	must(t, err)
	smaller := "dcb"
	if len(dcz) < len(dcb) {
		smaller = "dcz"
	}
	other := dictionary.FormatAvailableDictionary(dictionary.HashOf([]byte("not a kept version")))
	cases := []struct {
		name, path, accept, avail, want string
	}{
		{"no Available-Dictionary", "/assets/app.js", "dcb, dcz", "", ""},
		{"unknown hash", "/assets/app.js", "dcb, dcz", other, ""},
		{"pattern mismatch", "/other/app.js", "dcb, dcz", avail, ""},
		{"dcb only", "/assets/app.js", "gzip, dcb", avail, "dcb"},
		{"another URL the pattern matches", "/assets/lib.js", "dcb", avail, "dcb"},
		{"dcz only", "/assets/app.js", "dcz, br", avail, "dcz"},
		{"both: the smaller", "/assets/app.js", "gzip, deflate, br, zstd, dcb, dcz", avail, smaller},
		{"q=0 for dcb", "/assets/app.js", "dcb;q=0, dcz", avail, "dcz"},
		{"q=0 for both", "/assets/app.js", "dcb;q=0, dcz;q=0", avail, ""},
		{"higher q wins", "/assets/app.js", "dcb;q=0.5, dcz;q=0.9", avail, "dcz"},
		{"br preferred by the client", "/assets/app.js", "br, dcb;q=0.5", avail, "br"},
		{"star is not dcb", "/assets/app.js", "*", avail, "br"},
		{"bad structured field", "/assets/app.js", "dcb, dcz", "abc", ""},
		{"wrong length", "/assets/app.js", "dcb, dcz", ":AAAA:", ""},
		{"two hashes", "/assets/app.js", "dcb, dcz", avail + ", " + avail, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hs := []string{"Accept-Encoding: " + c.accept}
			if c.avail != "" {
				hs = append(hs, "Available-Dictionary: "+c.avail)
			}
			r := raw(t, ts, "GET", c.path, hs...)
			wantStatus(t, r, http.StatusOK)
			wantHeader(t, r, "Content-Encoding", c.want)
			wantHeader(t, r, "Repr-Digest", sfSHA256(r.body))
			got := r.body
			if c.want == "dcb" || c.want == "dcz" {
				got, err = dictionary.Decode(c.want, r.body, v1, dictionary.Limits{})
				must(t, err)
				wantHeader(t, r, "Unencoded-Digest", sfSHA256([]byte(dictV2)))
			} else {
				wantHeader(t, r, "Unencoded-Digest", "")
				if c.want != "" {
					got = decode(t, c.want, r.body)
				}
			}
			if string(got) != dictV2 {
				t.Fatalf("decoded body (%d bytes) is not v2 (%d bytes)", len(got), len(dictV2))
			}
		})
	}
}
