package patch

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

const snarkSource = "\"Just the place for a Snark!\" the Bellman cried,\nAs he landed his crew with care;\n" +
	"Supporting each man on the top of the tide\nBy a finger entwined in his hair.\n"

const snarkTarget = "\"Just the place for a Snark! I have said it twice:\nThat alone should encourage the crew.\n" +
	"Just the place for a Snark! I have said it thrice:\nWhat I tell you three times is true.\"\n"

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// vcdiffVectors are RFC 3284 §3, the vectors of rfc-notes §4.8 and §4.10
// and the RFC 3229 illustration of rfc-notes §3.9.
var vcdiffVectors = []struct {
	name, base, target, delta string
}{
	{"rfc3284 section 3", "abcdefghijklmnop", "abcdwxyzefghefghefghefghzzzz",
		"d6c3c40000 01 10 00 13 1c 00 05 06 03 7778797a7a 14 05 14 1c 00 04 00 04 18"},
	{"add only", "", "hello\n", "d6c3c40000 00 0c 06 00 06 01 00 68656c6c6f0a 07"},
	{"open-vcdiff snark", snarkSource, snarkTarget,
		"d6c3c4000001811f0079813200640c03" +
			hex.EncodeToString([]byte(" I have said it twice:\nThat alone should encourage the crew.\n"+
				"hrWhat I tel you three times is true.\"\n")) +
			"131c013d232ccb0a0002011b" + "00582d"},
	{"empty target adler32", "x", "", "d6c3c400 00 04 09 00 00 00 00 00 00000001"},
	{"empty target", "x", "", "d6c3c400 00 00 05 00 00 00 00 00"},
	{"compression only", "", `{"hello": "world", "answer": 42}` + "\n",
		"d6c3c400 00 04 2c 21 00 21 02 00 b3bb0a01" + hex.EncodeToString([]byte(`{"hello": "world", "answer": 42}`+"\n")) + "01 21"},
	{"xdelta3 app header adler32", `{"hello": "world"}` + "\n", `{"hello": "world", "answer": 42}` + "\n",
		"d6c3c400 04 13" + hex.EncodeToString([]byte("new.json//old.json/")) +
			"05 11 00 1c 21 00 10 02 01 b3bb0a01" + hex.EncodeToString([]byte(`, "answer": 42}`+"\n")) + "21 11 00"},
	{"xdelta3 -A -n", `{"hello": "world"}` + "\n", `{"hello": "world", "answer": 42}` + "\n",
		"d6c3c400 00 01 11 00 18 21 00 10 02 01" + hex.EncodeToString([]byte(`, "answer": 42}`+"\n")) + "21 11 00"},
	{"rfc3229 illustration", `{"hello": "world"}` + "\n", `{"hello": "world", "answer": 42}` + "\n",
		"d6c3c400000111001821001002012c2022616e73776572223a2034327d0a211100"},
}

func TestDecodeVCDIFFVectors(t *testing.T) {
	for _, tt := range vcdiffVectors {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			base := []byte(tt.base)
			err := DecodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(mustHex(t, tt.delta)), &out)
			if err != nil {
				t.Fatalf("DecodeVCDIFF: %v", err)
			}
			if out.String() != tt.target {
				t.Errorf("DecodeVCDIFF = %q, want %q", out.String(), tt.target)
			}
		})
	}
}

var vcdiffErrorTests = []struct {
	name, base, delta string
	want              error
	text              string
}{
	{"bad magic", "", "d6c3c50000", ErrCorrupt, "magic"},
	{"version", "", "d6c3c40100", ErrUnsupported, "version"},
	{"sdch", "", "d6c3c45300", ErrUnsupported, "SDCH"},
	{"unknown secondary compressor", "", "d6c3c4000107", ErrUnsupported, "secondary compressor ID 7"},
	{"header bits", "", "d6c3c40008", ErrCorrupt, "header indicator"},
	{"window bits", "", "d6c3c4000008", ErrCorrupt, "window indicator"},
	{"source and target", "", "d6c3c4000003", ErrCorrupt, "VCD_TARGET"},
	{"adler mismatch", "x", "d6c3c400 00 04 09 00 00 00 00 00 00000002", ErrCorrupt, "adler32 mismatch"},
	{"segment beyond base", "abc", "d6c3c400 00 01 04 00 05 00 00 00 00 00", ErrCorrupt, "beyond"},
	{"varint overflow", "", "d6c3c400 00 00 88808080 00", ErrCorrupt, "out of range"},
	{"window too large", "", "d6c3c400 00 00 07 8480808000 00 00 00 00", ErrLimit, "target window"},
	{"truncated sections", "", "d6c3c40000 00 0c 06 00 06 01 00 68656c", ErrCorrupt, "truncated"},
	{"delta length mismatch", "", "d6c3c40000 00 0d 06 00 06 01 00 68656c6c6f0a 07 00", ErrCorrupt, "delta encoding length"},
	{"copy before here", "", "d6c3c40000 00 07 04 00 00 01 01 14 00", ErrCorrupt, "copy address"},
	{"overrun", "", "d6c3c40000 00 0c 02 00 06 01 00 68656c6c6f0a 07", ErrCorrupt, "overruns"},
	{"short output", "", "d6c3c40000 00 0c 07 00 06 01 00 68656c6c6f0a 07", ErrCorrupt, "produce"},
	{"decompress indicator", "", "d6c3c40000 00 05 00 01 00 00 00", ErrCorrupt, "delta indicator"},
	// A delta cut after its header: xdelta3 refuses it ("nothing to
	// output"); an empty target is encoded as one empty window.
	{"no window", "", "d6c3c40000", ErrCorrupt, "no window"},
}

func TestDecodeVCDIFFErrors(t *testing.T) {
	for _, tt := range vcdiffErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			base := []byte(tt.base)
			err := DecodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(mustHex(t, tt.delta)), &bytes.Buffer{},
				WithMaxWindow(1<<20))
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("DecodeVCDIFF error = %v, want %v containing %q", err, tt.want, tt.text)
			}
		})
	}
}

func TestDecodeVCDIFFTargetWindow(t *testing.T) {
	// Window 1 adds "abcd"; window 2 copies it from a VCD_TARGET segment [0, 4)
	// and then copies from its own output, overlapping the bytes it produces.
	delta := "d6c3c40000" +
		"00 0a 04 00 04 01 00 61626364 05" +
		"02 04 00 09 08 00 00 02 02 14 14 00 06"
	for _, hist := range []int{2, 4, 1 << 20} { // copied into or swapped with the history
		got, err := decodeVCDIFF(nil, mustHex(t, delta), WithHistory(hist))
		if want := "abcdabcdcdcd"; err != nil || string(got) != want {
			t.Errorf("DecodeVCDIFF with %d bytes of history = %q, %v; want %q", hist, got, err, want)
		}
	}
	// A window "ef" in between pushes "abcd" out of a 2-byte history.
	older := "d6c3c40000" + "00 0a 04 00 04 01 00 61626364 05" + "00 08 02 00 02 01 00 6566 03" +
		"02 04 00 09 08 00 00 02 02 14 14 00 06"
	if _, err := decodeVCDIFF(nil, mustHex(t, older), WithHistory(2)); !errors.Is(err, ErrLimit) {
		t.Errorf("DecodeVCDIFF of a segment older than the history: error = %v, want ErrLimit", err)
	}
}

// TestDecodeVCDIFFCodeTable decodes a delta carrying an application-defined
// code table (RFC 3284 §7) in which codes 0 and 1 trade places (ADD, RUN).
func TestDecodeVCDIFFCodeTable(t *testing.T) {
	custom := *defaultTable
	custom.entries[0], custom.entries[1] = custom.entries[1], custom.entries[0]
	dflt := defaultTable.bytes()
	tableDelta := encodeVCDIFF(t, dflt, custom.bytes())
	window := mustHex(t, "00 0d 06 00 06 02 00 68656c6c6f0a 00 06")
	for name, td := range map[string][]byte{"file": tableDelta, "bare window": tableDelta[5:]} {
		t.Run(name, func(t *testing.T) {
			blob := append([]byte{4, 3}, td...)
			delta := append(appendVarint([]byte{0xd6, 0xc3, 0xc4, 0, vcdCodeTable}, uint64(len(blob))), blob...)
			got, err := decodeVCDIFF(nil, append(delta, window...))
			if err != nil || string(got) != "hello\n" {
				t.Fatalf("DecodeVCDIFF = %q, %v; want \"hello\\n\"", got, err)
			}
		})
	}
}
