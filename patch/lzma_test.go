package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ulikunitz/xz/lzma"
)

// lzmaSections compresses each part with one LZMA2 stream (another
// encoder, github.com/ulikunitz/xz/lzma), flushing after each part as
// xdelta3 does after each section, and returns each part's chunks.
func lzmaSections(t testing.TB, props lzma.Properties, dict int, parts [][]byte) [][]byte {
	var out bytes.Buffer
	w, err := lzma.Writer2Config{Properties: &props, DictCap: dict}.NewWriter2(&out)
	if err != nil {
		t.Fatal(err)
	}
	var sections [][]byte
	for _, p := range parts {
		start := out.Len()
		if _, err := w.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		sections = append(sections, bytes.Clone(out.Bytes()[start:]))
	}
	return sections
}

// TestLZMA2Decodes decodes what another LZMA2 encoder writes, section by
// section, for every kind of data and the corners of lc, lp and pb and of
// the dictionary size: the bytes come back.
func TestLZMA2Decodes(t *testing.T) {
	runs := bytes.Repeat([]byte("abcabcabd"), 20000)
	data := map[string][]byte{
		"text":   text(5, 360<<10),
		"random": random(6, 200<<10), // stored chunks
		"runs":   runs,
		"mixed":  append(append(text(7, 100<<10), random(8, 100<<10)...), runs[:100<<10]...),
	}
	for _, props := range []lzma.Properties{{LC: 3, LP: 0, PB: 2}, {LC: 0, LP: 2, PB: 0}, {LC: 1, LP: 3, PB: 4}, {LC: 4, LP: 0, PB: 0}} {
		for _, dict := range []int{1 << 16, 1 << 20} { // chunks up to 2 MiB: the dictionary wraps inside them
			for name, b := range data {
				t.Run(fmt.Sprintf("%s/lc%d-lp%d-pb%d/dict%d", name, props.LC, props.LP, props.PB, dict), func(t *testing.T) {
					var parts [][]byte
					for rest, n := b, 1000; len(rest) > 0; n *= 3 {
						k := min(n, len(rest))
						parts, rest = append(parts, rest[:k]), rest[k:]
					}
					z := newLZMA2(dict)
					for i, sec := range lzmaSections(t, props, dict, parts) {
						got, err := z.decode(sec, nil, len(parts[i]))
						if err != nil {
							t.Fatalf("section %d: %v", i, err)
						}
						if !bytes.Equal(got, parts[i]) {
							t.Fatalf("section %d: decoded bytes differ", i)
						}
					}
				})
			}
		}
	}
}

// TestLZMA2Rejects: malformed chunks fail with ErrCorrupt naming the
// problem, and nothing panics.
func TestLZMA2Rejects(t *testing.T) {
	b := text(9, 20000)
	good := lzmaSections(t, lzma.Properties{LC: 3, LP: 0, PB: 2}, 1<<16, [][]byte{b})[0]
	if _, err := newLZMA2(1<<16).decode(good, nil, len(b)); err != nil {
		t.Fatalf("the good stream: %v", err)
	}
	tests := []struct {
		name string
		in   []byte
		n    int
		want string
	}{
		{"no dictionary reset", append([]byte{0x80}, good[1:]...), len(b), "before a dictionary reset"},
		{"bad control byte", []byte{0x03}, 1, "control byte"},
		{"no properties", []byte{0x01, 0, 0, 'a', 0x80, 0, 0, 0, 4, 0, 0, 0, 0, 0}, 2, "without properties"},
		{"lc+lp over 4", []byte{0xe0, 0, 0, 0, 4, 3*9 + 2, 0, 0, 0, 0, 0}, 1, "over 4"},
		{"truncated", good[:len(good)/2], len(b), "chunk"},
		{"more output than wanted", good, len(b) - 1, "chunk of"},
		{"less output than wanted", append(bytes.Clone(good), 0x02, 0, 0, 'a'), len(b) + 2, fmt.Sprintf("want %d bytes, the chunks make %d", len(b)+2, len(b)+1)},
		{"bytes after the end", []byte{0x01, 0, 0, 'a', 0x00, 0x01}, 1, "after the end"},
		{"match before the start", []byte{0xe0, 0, 0, 0, 5, 0x5d, 0, 0xff, 0xff, 0xff, 0xff, 0}, 1, ""},
		{"stored chunk too long", []byte{0x01, 0, 9, 'a'}, 10, "stored chunk"},
	}
	for _, tt := range tests {
		_, err := newLZMA2(1<<16).decode(tt.in, nil, tt.n)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error = %v, want ErrCorrupt containing %q", tt.name, err, tt.want)
		}
	}
}

// FuzzLZMA2 decodes arbitrary chunks (the first two bytes give how many
// bytes to make): never a panic, never more than asked, and what decodes
// is what github.com/ulikunitz/xz/lzma decodes from the same chunks.
func FuzzLZMA2(f *testing.F) {
	for _, b := range [][]byte{text(10, 300), random(11, 200), bytes.Repeat([]byte("xy"), 200)} { // small: the engine minimizes what it finds
		sec := lzmaSections(f, lzma.Properties{LC: 3, LP: 0, PB: 2}, lzmaMinDict, [][]byte{b})[0]
		f.Add(append([]byte{byte(len(b) >> 8), byte(len(b))}, sec...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		n := int(in[0])<<8 | int(in[1])
		got, err := newLZMA2(lzmaMinDict).decode(in[2:], nil, n)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		r, err := lzma.Reader2Config{DictCap: lzmaMinDict}.NewReader2(bytes.NewReader(in[2:]))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, n)
		if _, err := io.ReadFull(r, want); err == nil && !bytes.Equal(got, want) {
			t.Fatalf("decoded %x, the other decoder %x", got, want)
		}
	})
}
