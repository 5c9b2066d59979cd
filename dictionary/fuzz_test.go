package dictionary

import (
	"bytes"
	"net/url"
	"reflect"
	"testing"
)

const fuzzLimit = 1 << 20

// FuzzParseUseAsDictionary: no panic, bounds hold, and what parses
// produces a field that parses back to the same value.
func FuzzParseUseAsDictionary(f *testing.F) {
	for _, s := range []string{`match="/product/*", match-dest=("document")`, `match="/app/*/main.js"`,
		`match="/a", id="v1", type=raw`, `match="/a", type=other, x=?1`, `id="x"`, `match=1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUseAsDictionary([]string{s})
		if err != nil {
			return
		}
		if len(u.Match) > MaxMatchLen || len(u.ID) > MaxIDLen || len(u.MatchDest) > MaxMatchDests {
			t.Fatalf("bounds exceeded: %+v", u)
		}
		out, err := u.String()
		if err != nil {
			if u.Match == "" {
				return
			}
			t.Fatalf("parsed %+v but cannot produce it: %v", u, err)
		}
		back, err := ParseUseAsDictionary([]string{out})
		if len(back.MatchDest) == 0 && len(u.MatchDest) == 0 {
			back.MatchDest, u.MatchDest = nil, nil
		}
		if err != nil || !reflect.DeepEqual(back, u) {
			t.Fatalf("round trip of %q via %q: got %+v, %v", s, out, back, err)
		}
	})
}

// FuzzParseAvailableDictionary: a parsed hash formats and parses back.
func FuzzParseAvailableDictionary(f *testing.F) {
	for _, s := range []string{":pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=:", ":AAAA:", `"x"`, ":pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=:;p=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseAvailableDictionary([]string{s})
		if err != nil {
			return
		}
		back, err := ParseAvailableDictionary([]string{FormatAvailableDictionary(h)})
		if err != nil || back != h {
			t.Fatalf("round trip: got %x, %v; want %x", back, err, h)
		}
	})
}

// FuzzParseDictionaryID: a parsed id is bounded and round-trips.
func FuzzParseDictionaryID(f *testing.F) {
	for _, s := range []string{`"dictionary-12345"`, `"a\"b"`, "tok", `"x";p`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseDictionaryID([]string{s})
		if err != nil {
			return
		}
		if len(id) > MaxIDLen {
			t.Fatalf("id of %d characters accepted", len(id))
		}
		out, err := FormatDictionaryID(id)
		if err != nil {
			t.Fatalf("parsed %q but cannot produce it: %v", id, err)
		}
		if back, err := ParseDictionaryID([]string{out}); err != nil || back != id {
			t.Fatalf("round trip: got %q, %v; want %q", back, err, id)
		}
	})
}

// FuzzCompilePattern: no panic compiling or matching; a pattern that
// compiles to a single literal path matches a URL with exactly that path.
func FuzzCompilePattern(f *testing.F) {
	for _, s := range [][2]string{{"/app/*/main.js", "https://example.org/app/v2/main.js"}, {"/a?v=*", "https://example.org/a?v=1"},
		{"/(x)", "https://example.org/x"}, {"main.*", "https://example.org/dir/main.css"}, {"/d\u00fcsseldorf", "https://example.org/d%C3%BCsseldorf"}} {
		f.Add(s[0], s[1])
	}
	base, _ := url.Parse("https://example.org/dir/page")
	f.Fuzz(func(t *testing.T, match, req string) {
		p, err := CompilePattern(match, base)
		if err != nil {
			return
		}
		if u, err := url.Parse(req); err == nil {
			p.Match(u)
		}
		if len(p.path) != 1 || p.query != nil {
			return
		}
		u, err := url.Parse("https://example.org" + p.path[0])
		if err != nil || u.EscapedPath() != p.path[0] || u.RawQuery != "" || u.Fragment != "" {
			return
		}
		if !p.Match(u) {
			t.Fatalf("pattern %q (path %q) does not match %s", match, p.path[0], u)
		}
	})
}

func fuzzDecode(f *testing.F, coding string) {
	v1, v2 := versions()
	enc, _ := Encode(coding, v2[:4000], v1[:4000])
	f.Add(enc, v1[:4000])
	small, _ := Encode(coding, []byte("{\"hello\": \"world\", \"answer\": 42}\n"), []byte("{\"hello\": \"world\"}\n"))
	f.Add(small, []byte("{\"hello\": \"world\"}\n"))
	f.Add(small[:HeaderLen(coding)], []byte("x"))
	f.Fuzz(func(t *testing.T, body, dict []byte) {
		out, err := Decode(coding, body, dict, Limits{MaxOutput: fuzzLimit})
		if len(out) > fuzzLimit {
			t.Fatalf("decoded %d bytes, over the %d limit", len(out), fuzzLimit)
		}
		if err != nil || len(dict) == 0 {
			return
		}
		again, err := Encode(coding, out, dict)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(coding, again, dict, Limits{MaxOutput: fuzzLimit})
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("round trip of the decoded body: %v", err)
		}
	})
}

// FuzzDecodeDCZ: no panic, output within the cap, decoded bodies round-trip.
func FuzzDecodeDCZ(f *testing.F) { fuzzDecode(f, CodingDCZ) }

// FuzzDecodeDCB: no panic, output within the cap, decoded bodies round-trip.
func FuzzDecodeDCB(f *testing.F) { fuzzDecode(f, CodingDCB) }
