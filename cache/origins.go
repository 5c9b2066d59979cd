package cache

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"

	"github.com/hdig/hdig/internal/smallfile"
)

// What hdig remembers of each origin, beside the versions: whether it
// answered a delta request with a 226, or only ever with a 200, and
// whether a zsync rebuild from it verified. hdig get's strategy chooser
// (--strategy auto) reads it to pick the way to a new version. It is
// advice, never proof: a damaged or missing file is forgotten.

// OriginsFile, in the cache directory, holds the facts of every origin.
const OriginsFile = "origins.json"

// maxOriginsFile bounds OriginsFile: past it, what was remembered is
// forgotten (the next NoteOrigin starts the file afresh).
const maxOriginsFile = 1 << 20

// OriginFacts is what hdig remembers of one origin.
type OriginFacts struct {
	Delta   bool `json:"rfc3229,omitempty"`    // it answered a 226
	NoDelta bool `json:"no_rfc3229,omitempty"` // it answered A-IM with a 200, never with a 226
	Zsync   bool `json:"zsync,omitempty"`      // a zsync rebuild from it verified
}

// OriginOf is the key facts are kept under: the scheme and host of a URL.
func OriginOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Origin returns the facts remembered in dir of rawURL's origin.
func Origin(dir, rawURL string) OriginFacts { return readOrigins(dir)[OriginOf(rawURL)] }

// NoteOrigin lets note change the facts of rawURL's origin in dir and
// writes them back when they changed (best effort: the file is rewritten
// whole through a temporary file and a rename, last writer wins).
func NoteOrigin(dir, rawURL string, note func(*OriginFacts)) {
	m := readOrigins(dir)
	k := OriginOf(rawURL)
	f := m[k]
	note(&f)
	if m[k] == f {
		return
	}
	m[k] = f
	b, _ := json.Marshal(m)
	tmp, err := os.CreateTemp(dir, OriginsFile+".*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil && cerr == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, OriginsFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

func readOrigins(dir string) map[string]OriginFacts {
	m := map[string]OriginFacts{}
	if b, err := smallfile.Read(filepath.Join(dir, OriginsFile), maxOriginsFile); err == nil {
		json.Unmarshal(b, &m) // a damaged file is forgotten, not fatal
	}
	return m
}
