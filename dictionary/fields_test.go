package dictionary

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
)

func TestParseUseAsDictionaryRFCExamples(t *testing.T) {
	cases := []struct {
		in   string
		want Use
	}{
		{`match="/product/*", match-dest=("document")`, Use{Match: "/product/*", MatchDest: []string{"document"}, Type: "raw"}},
		{`match="/app/*/main.js"`, Use{Match: "/app/*/main.js", Type: "raw"}},
		{`match="/d%C3%BCsseldorf"`, Use{Match: "/d%C3%BCsseldorf", Type: "raw"}},
		{`match="/a", id="dictionary-12345", type=raw, ext=1`, Use{Match: "/a", ID: "dictionary-12345", Type: "raw"}},
		{`match="/a", match-dest=(), type=zz`, Use{Match: "/a", MatchDest: []string{}, Type: "zz"}},
	}
	for _, c := range cases {
		got, err := ParseUseAsDictionary([]string{c.in})
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.in, got, c.want)
		}
	}
	u, _ := ParseUseAsDictionary([]string{`match="/a", type=zz`})
	if u.Usable() {
		t.Error("a dictionary of unknown type is usable; RFC 9842 §2.1.4 says MUST NOT use it")
	}
}

func TestParseUseAsDictionaryRejects(t *testing.T) {
	bad := map[string]string{
		`id="x"`:                       "match is required",
		`match=abc`:                    "want a string",
		`match=("a")`:                  "inner list",
		`match="/a", match-dest="doc"`: "want an inner list",
		`match="/a", match-dest=(doc)`: "want strings",
		`match="/a", id=1`:             "want a string",
		`match="/a", type="raw"`:       "want a token",
		`match="/a", id="` + strings.Repeat("x", MaxIDLen+1) + `"`: "at most 1024",
		`match="/a`:                           "not a structured-field",
		strings.Repeat(" ", MaxFieldLength+1): "too long",
	}
	for in, want := range bad {
		_, err := ParseUseAsDictionary([]string{in})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40s: got error %v, want one containing %q", in, err, want)
		}
	}
}

func TestUseStringRoundTrip(t *testing.T) {
	u := Use{Match: "/app/*/main.js", MatchDest: []string{"script", "document"}, ID: `v1 "quoted"`, Type: "raw"}
	s, err := u.String()
	if err != nil {
		t.Fatal(err)
	}
	if want := `match="/app/*/main.js", match-dest=("script" "document"), id="v1 \"quoted\""`; s != want {
		t.Fatalf("got %s, want %s", s, want)
	}
	back, err := ParseUseAsDictionary([]string{s})
	if err != nil || !reflect.DeepEqual(back, u) {
		t.Fatalf("round trip: got %+v, %v; want %+v", back, err, u)
	}
	if _, err := (Use{}).String(); err == nil {
		t.Error("a Use without match produced a field")
	}
}

func TestAvailableDictionary(t *testing.T) {
	// RFC 9842 §2.2 example.
	const field = ":pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=:"
	h, err := ParseAvailableDictionary([]string{field})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString("pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=")
	if string(h[:]) != string(raw) {
		t.Fatalf("got %x, want %x", h, raw)
	}
	if got := FormatAvailableDictionary(h); got != field {
		t.Fatalf("format: got %s, want %s", got, field)
	}
	// The notes' sample: SHA-256 of `{"hello": "world"}` + LF.
	if got := FormatAvailableDictionary(HashOf([]byte("{\"hello\": \"world\"}\n"))); got != ":RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:" {
		t.Fatalf("hash of the sample dictionary: got %s", got)
	}
	for _, in := range []string{":AAAA:", `"abc"`, ":pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=:, :AAAA:", "", strings.Repeat("a", MaxFieldLength+1)} {
		if _, err := ParseAvailableDictionary([]string{in}); err == nil {
			t.Errorf("%.40q: accepted", in)
		}
	}
}

func TestDictionaryID(t *testing.T) {
	const id = "/v1/main.js 33a64df551425fcc55e4d42a148795d9f25f89d4"
	s, err := FormatDictionaryID(id)
	if err != nil || s != `"`+id+`"` {
		t.Fatalf("format: got %s, %v", s, err)
	}
	got, err := ParseDictionaryID([]string{s})
	if err != nil || got != id {
		t.Fatalf("parse: got %q, %v", got, err)
	}
	long := strings.Repeat("x", MaxIDLen+1)
	if _, err := FormatDictionaryID(long); err == nil {
		t.Error("formatted a 1025-character id")
	}
	if _, err := ParseDictionaryID([]string{`"` + long + `"`}); err == nil {
		t.Error("parsed a 1025-character id")
	}
	if _, err := ParseDictionaryID([]string{"tok"}); err == nil {
		t.Error("parsed a token as Dictionary-ID")
	}
	if _, err := FormatDictionaryID("caf\u00e9"); err == nil {
		t.Error("formatted a non-ASCII id, which is not a structured-field string")
	}
}

func TestUseExplicit(t *testing.T) {
	u := Use{Match: "/assets/*", ID: "/assets/app.js"}
	got, err := u.Explicit()
	if err != nil {
		t.Fatal(err)
	}
	want := `match="/assets/*", match-dest=(), id="/assets/app.js", type=raw`
	if got != want {
		t.Fatalf("Explicit: want %s, got %s", want, got)
	}
	back, err := ParseUseAsDictionary([]string{got})
	if err != nil || back.Match != u.Match || back.ID != u.ID || len(back.MatchDest) != 0 || back.Type != TypeRaw {
		t.Fatalf("round trip: want %+v, got %+v (%v)", u, back, err)
	}
	short, _ := u.String()
	if short != `match="/assets/*", id="/assets/app.js"` {
		t.Fatalf("String: got %s", short)
	}
}
