package cmd

import (
	"fmt"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/spf13/pflag"
)

// mirrorFlags are --mirror and --max-mirrors (fetch/mirrors.go).
type mirrorFlags struct {
	Mirrors []string
	Max     int
}

func (m *mirrorFlags) add(f *pflag.FlagSet) {
	f.StringArrayVar(&m.Mirrors, "mirror", nil, "with -o, also fetch pieces from this mirror `URL` of the same file (repeatable); the origin's Repr-Digest (or --expect) stays the proof, and a mirror serving other bytes is named and dropped")
	f.IntVar(&m.Max, "max-mirrors", fetch.DefaultLinkMirrors, "take at most `N` mirrors from the origin's Link rel=duplicate (RFC 6249; 0: none)")
}

// options checks the flags and sets the download's mirrors.
func (m *mirrorFlags) options(o *getOptions, req *fetch.Request, opts *fetch.DownloadOptions) error {
	if m.Max < 0 || m.Max > fetch.MaxMirrors {
		return usageErrorf("--max-mirrors %d: want 0 to %d", m.Max, fetch.MaxMirrors)
	}
	if len(m.Mirrors) > fetch.MaxMirrors {
		return usageErrorf("%d --mirror: want at most %d", len(m.Mirrors), fetch.MaxMirrors)
	}
	for _, u := range m.Mirrors {
		if err := fetch.CheckMirror(u); err != nil {
			return usageErrorf("--mirror: %v", err)
		}
	}
	if len(m.Mirrors) > 0 && (!o.downloads(req) || o.Continue) {
		return usageErrorf("--mirror needs a plain GET to -o FILE, without -C")
	}
	opts.Mirrors, opts.LinkMirrors = m.Mirrors, m.Max
	return nil
}

// mirrorNote names, in the verdict line, the sources of a download with
// mirrors and every mirror that served wrong bytes.
func mirrorNote(res *fetch.Result) string {
	used, bad := 0, []string{}
	for _, m := range res.Mirrors {
		switch m.State {
		case fetch.MirrorUsed:
			used++
		case fetch.MirrorCorrupt:
			bad = append(bad, m.URL)
		}
	}
	if used == 0 && len(bad) == 0 {
		return ""
	}
	note := fmt.Sprintf(" from the origin and %d mirror(s)", used)
	if len(bad) > 0 {
		note += fmt.Sprintf("; wrong bytes from %s, dropped and fetched elsewhere", strings.Join(bad, ", "))
	}
	return note
}
