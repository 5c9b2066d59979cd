package nginxconf

import (
	"bytes"
	"strings"
	"testing"
)

// unquote reads an nginx quoted token as ngx_conf_read_token does: a
// backslash before a double quote, a single quote or a backslash stands for
// that character; before t, r or n for the control character; before
// anything else it stays.
func unquote(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			return "", false // an unescaped quote would end the token
		}
		if c == '\\' && i+1 < len(s) {
			switch n := s[i+1]; n {
			case '"', '\'', '\\':
				b.WriteByte(n)
				i++
				continue
			case 't', 'r', 'n':
				b.WriteByte(map[byte]byte{'t': '\t', 'r': '\r', 'n': '\n'}[n])
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// FuzzIncludeState: ReadState never fails on any bytes, and what Write
// makes of the entries it returns reads back to the same entries, every
// key and value nginx reads as the string written.
func FuzzIncludeState(f *testing.F) {
	f.Add([]byte(stateMark + `{"uri":"/a b\"c\\d","id":{"size":3},"digest":"sha-256=:AAAA:"}` + "\n"))
	f.Add([]byte("map $uri $x {\n" + stateMark + "{not json\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		old := ReadState(bytes.NewReader(data))
		var entries []Entry
		for _, e := range old {
			if Refuse(e.URI) != "" || strings.ContainsAny(e.Digest, "\"\\$\n") {
				continue
			}
			entries = append(entries, e)
		}
		var buf bytes.Buffer
		if err := Write(&buf, "/www", entries); err != nil {
			t.Fatal(err)
		}
		again := ReadState(bytes.NewReader(buf.Bytes()))
		if len(again) != len(entries) {
			t.Fatalf("%d entries written, %d read back", len(entries), len(again))
		}
		for _, e := range entries {
			if got, ok := unquote(quote(e.URI)); !ok || got != e.URI {
				t.Fatalf("quote(%q) reads back as %q", e.URI, got)
			}
		}
	})
}
