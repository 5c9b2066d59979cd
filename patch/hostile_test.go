package patch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// vcdiffWindow returns a window without a segment: tgtLen bytes made by
// the instruction codes inst from data, with no addresses.
func vcdiffWindow(tgtLen int, data, inst []byte) []byte {
	body := appendVarint(nil, uint64(tgtLen))
	body = append(body, 0) // delta indicator
	body = appendVarint(body, uint64(len(data)))
	body = appendVarint(body, uint64(len(inst)))
	body = appendVarint(body, 0)
	body = append(append(body, data...), inst...)
	w := appendVarint([]byte{0}, uint64(len(body)))
	return append(w, body...)
}

// decodeCounting decodes delta and returns the target with the work the
// decoder did.
func decodeCounting(t *testing.T, delta []byte, opts ...Option) ([]byte, decodeWork) {
	t.Helper()
	var w decodeWork
	out, err := decodeVCDIFF(nil, delta, append(opts, withWork(&w))...)
	if err != nil {
		t.Fatalf("DecodeVCDIFF: %v", err)
	}
	return out, w
}

// TestDecodeVCDIFFManySmallWindows: once the history is full, every window
// used to move the whole history down to make room, so a delta of tiny
// windows cost a history's worth of copying per 9 bytes. Each decoded byte
// must be moved into the history a bounded number of times.
func TestDecodeVCDIFFManySmallWindows(t *testing.T) {
	const histSize, small = 4096, 20000
	delta := []byte{0xd6, 0xc3, 0xc4, 0, 0}
	// A RUN (code 0, size follows) of histSize bytes fills the history.
	delta = append(delta, vcdiffWindow(histSize, []byte{'r'}, appendVarint([]byte{0}, histSize))...)
	one := vcdiffWindow(1, []byte{'x'}, []byte{2}) // code 2: ADD of 1 byte
	for range small {
		delta = append(delta, one...)
	}
	out, w := decodeCounting(t, delta, WithHistory(histSize))
	if len(out) != histSize+small {
		t.Fatalf("decoded %d bytes, want %d", len(out), histSize+small)
	}
	t.Logf("%d bytes decoded, %d moved into the history", len(out), w.histMoved)
	if limit := 2 * int64(len(out)); w.histMoved > limit {
		t.Errorf("%d one-byte windows moved %d bytes into a %d-byte history, want at most %d", small, w.histMoved, histSize, limit)
	}
}

// customTableDelta returns a delta header with an application-defined code
// table equal to the default one but with the given cache sizes.
func customTableDelta(t *testing.T, near, same byte) []byte {
	t.Helper()
	dflt := defaultTable.bytes()
	blob := append([]byte{near, same}, encodeVCDIFF(t, dflt, dflt)...)
	return append(appendVarint([]byte{0xd6, 0xc3, 0xc4, 0, vcdCodeTable}, uint64(len(blob))), blob...)
}

// TestDecodeVCDIFFBigSameCache: an application-defined table may have 252
// same caches of 256 slots; clearing all 64512 of them for every window
// made each 5-byte empty window cost half a megabyte of clearing. A reset
// clears no more slots than the window's COPYs wrote.
func TestDecodeVCDIFFBigSameCache(t *testing.T) {
	const windows = 2000
	empty := vcdiffWindow(0, nil, nil)
	for _, c := range []struct{ near, same byte }{{4, 3}, {0, 252}} {
		delta := customTableDelta(t, c.near, c.same)
		for range windows {
			delta = append(delta, empty...)
		}
		_, w := decodeCounting(t, delta)
		if w.cacheCleared > w.cacheCopies {
			t.Errorf("%d empty windows with %d near and %d same caches cleared %d slots for %d COPY addresses",
				windows, c.near, c.same, w.cacheCleared, w.cacheCopies)
		}
	}
}

// TestCodeTableAllModes: near + same = 254 gives 256 address modes, every
// mode byte valid; the mode count used to wrap to 0 in a byte and reject
// every COPY.
func TestCodeTableAllModes(t *testing.T) {
	tbl, err := parseCodeTable(defaultTable.bytes(), 0, 254)
	if err != nil {
		t.Fatalf("parseCodeTable(near 0, same 254): %v", err)
	}
	if tbl.same != 254 {
		t.Errorf("same = %d, want 254", tbl.same)
	}
	got, err := decodeVCDIFF(nil, append(customTableDelta(t, 0, 254),
		mustHex(t, "00 0c 06 00 06 01 00 68656c6c6f0a 07")...)) // ADD 6 (code 7)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("DecodeVCDIFF with 256 address modes = %q, %v", got, err)
	}
}

// TestUndoGzipBombBounded: Undo of a compression alone honoured no
// WithMaxOutput, so a few KiB of gzip could write gigabytes.
func TestUndoGzipBombBounded(t *testing.T) {
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	zw.Write(make([]byte, 4<<20))
	zw.Close()
	var out bytes.Buffer
	err := Undo([]string{"gzip"}, nil, 0, bytes.NewReader(body.Bytes()), &out, WithMaxOutput(1<<18))
	if !errors.Is(err, ErrLimit) {
		t.Errorf("Undo(gzip) of 4 MiB with WithMaxOutput(256 KiB): error = %v, want ErrLimit", err)
	}
	if out.Len() > 1<<18 {
		t.Errorf("Undo wrote %d bytes, over the 256 KiB limit", out.Len())
	}
	// Exactly at the limit is fine, and the gzip trailer is still checked.
	out.Reset()
	if err := Undo([]string{"gzip"}, nil, 0, bytes.NewReader(body.Bytes()), &out, WithMaxOutput(4<<20)); err != nil || out.Len() != 4<<20 {
		t.Errorf("Undo(gzip) at the limit: %d bytes, %v", out.Len(), err)
	}
	bad := bytes.Clone(body.Bytes())
	bad[len(bad)-8] ^= 1 // CRC-32
	err = Undo([]string{"gzip"}, nil, 0, bytes.NewReader(bad), &out, WithMaxOutput(4<<20))
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Undo(gzip) with a bad CRC at the limit: error = %v, want ErrCorrupt", err)
	}
}

// TestApplyDiffEShortLinesMemory: the script was split into a slice per
// line (24 bytes of header for each 2-byte line), twelve times its size;
// now the text of a command is held as runs sliced from the script, a
// number bounded by the commands, not by the lines.
func TestApplyDiffEShortLinesMemory(t *testing.T) {
	const lines = 1 << 16
	script := append([]byte("3c\n"), bytes.Repeat([]byte("x\n"), lines)...)
	script = append(script, "..\n.\ns/.//\na\n"...)
	script = append(script, bytes.Repeat([]byte("y\n"), lines)...)
	script = append(script, ".\n1a\n"...)
	script = append(script, bytes.Repeat([]byte("z\n"), lines)...)
	script = append(script, ".\n"...)
	hunks, err := parseDiffE(script)
	if err != nil {
		t.Fatalf("parseDiffE: %v", err)
	}
	runs, size := 0, 0
	for _, h := range hunks {
		runs += len(h.text)
		for _, r := range h.text {
			size += len(r)
		}
	}
	if want := 2*3*lines + 2; size != want {
		t.Fatalf("parsed %d bytes of text, want %d", size, want)
	}
	// 3c: its text, the "." line made by s/.//, the text after "a"; 1a: one run.
	if runs > 4 {
		t.Errorf("%d text lines in %d commands are held as %d slices, want at most 4", 3*lines+1, len(hunks), runs)
	}
	var out bytes.Buffer
	err = ApplyDiffE(bytes.NewReader([]byte("a\nb\nc\n")), 6, bytes.NewReader(script), &out)
	if err != nil || out.Len() != 2+size+2 {
		t.Fatalf("ApplyDiffE: %d bytes, %v", out.Len(), err)
	}
}

// TestApplyDiffEHugeAppendLine: "Na" with N the largest int wrapped to a
// negative line number instead of being refused as a bad command.
func TestApplyDiffEHugeAppendLine(t *testing.T) {
	script := "9223372036854775807a\nx\n.\n"
	var out bytes.Buffer
	err := ApplyDiffE(bytes.NewReader([]byte("base\n")), 5, strings.NewReader(script), &out)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "want an ed command") {
		t.Errorf("ApplyDiffE(%q) error = %v, want a bad-command error", script, err)
	}
}

// TestUndoCompressionBombsBounded: br and zstd, like gzip, write no more
// than WithMaxOutput however far their few bytes expand.
func TestUndoCompressionBombsBounded(t *testing.T) {
	for _, name := range []string{"br", "zstd"} {
		var body bytes.Buffer
		if err := Compress(&body, bytes.NewReader(make([]byte, 4<<20)), name, 4<<20); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err := Undo([]string{name}, nil, 0, bytes.NewReader(body.Bytes()), &out, WithMaxOutput(1<<18))
		if !errors.Is(err, ErrLimit) || out.Len() > 1<<18 {
			t.Errorf("Undo(%s) of 4 MiB in %d bytes with WithMaxOutput(256 KiB): %d bytes written, error %v; want ErrLimit", name, body.Len(), out.Len(), err)
		}
	}
}

// TestUndoOneCompression: a delta compressed twice ("vcdiff, zstd, zstd",
// as a hostile 226 may list up to MaxIM) is refused before any decoder is
// made: each zstd layer may ask for a MaxZstdWindow window, and layers
// multiply a bomb's expansion. One compression after the coding, or one
// alone, is undone.
func TestUndoOneCompression(t *testing.T) {
	base := []byte(strings.Repeat("base version line\n", 200))
	target := append(append([]byte{}, base...), "one more line\n"...)
	var once bytes.Buffer
	if err := EncodeList([]string{"vcdiff", "zstd"}, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &once); err != nil {
		t.Fatal(err)
	}
	var twice bytes.Buffer
	if err := Compress(&twice, bytes.NewReader(once.Bytes()), "zstd", int64(once.Len())); err != nil {
		t.Fatal(err)
	}
	for _, ims := range [][]string{{"vcdiff", "zstd", "zstd"}, {"vcdiff", "br", "zstd"}, {"zstd", "zstd"}, {"gdiff", "gzip", "deflate"}} {
		var out bytes.Buffer
		err := Undo(ims, bytes.NewReader(base), int64(len(base)), bytes.NewReader(twice.Bytes()), &out)
		if !errors.Is(err, ErrUnsupported) || out.Len() != 0 {
			t.Errorf("Undo(%q): %d bytes out, error %v; want ErrUnsupported, nothing written", ims, out.Len(), err)
		}
		if err := CheckIM(ims); !errors.Is(err, ErrUnsupported) {
			t.Errorf("CheckIM(%q) = %v, want ErrUnsupported", ims, err)
		}
	}
	var out bytes.Buffer
	if err := Undo([]string{"vcdiff", "zstd"}, bytes.NewReader(base), int64(len(base)), &once, &out); err != nil || !bytes.Equal(out.Bytes(), target) {
		t.Errorf("Undo(vcdiff, zstd): %d bytes, %v; want the target", out.Len(), err)
	}
}

// TestUndoCompressedDeltaBounded: a few bytes of br or zstd expand to
// megabytes of deltas that build nothing (empty vcdiff windows, gdiff
// copies of zero bytes), which the decoder would read to their end with
// no output bound ever met. The decompressed delta is bounded by what it
// builds: past the floor (here about 1 MiB: two 64 KiB windows and a
// header), at most maxDeltaExpansion bytes per byte out.
func TestUndoCompressedDeltaBounded(t *testing.T) {
	const n = 8 << 20
	empty := append([]byte{}, vcdiffMagic...)
	empty = append(empty, 0, 0)
	for len(empty) < n {
		empty = append(empty, vcdiffWindow(0, nil, nil)...)
	}
	zeroCopies := append([]byte{}, gdiffMagic...)
	for len(zeroCopies) < n {
		zeroCopies = append(zeroCopies, gdiffCopyBase, 0, 0, 0) // copy 0 bytes from 0
	}
	zeroCopies = append(zeroCopies, gdiffEOF)
	opts := []Option{WithMaxWindow(64 << 10), WithMaxText(64 << 10)}
	floor := deltaFloor(newConfig(opts))
	for _, tc := range []struct {
		coding string
		delta  []byte
	}{{"vcdiff", empty}, {"gdiff", zeroCopies}} {
		for _, z := range []string{"br", "zstd"} {
			var body bytes.Buffer
			if err := Compress(&body, bytes.NewReader(tc.delta), z, -1); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err := Undo([]string{tc.coding, z}, bytes.NewReader(nil), 0, bytes.NewReader(body.Bytes()), &out, opts...)
			if !errors.Is(err, ErrLimit) || out.Len() != 0 {
				t.Errorf("%s, %s: %d bytes of delta in %d: %d bytes out, error %v; want ErrLimit",
					tc.coding, z, len(tc.delta), body.Len(), out.Len(), err)
			}
			if !strings.Contains(fmt.Sprint(err), fmt.Sprintf("past %d bytes", floor)) {
				t.Errorf("%s, %s: error %v, want it to name the %d-byte floor", tc.coding, z, err, floor)
			}
		}
	}
}

// TestUndoCompressionLayerFails: a compression over the delta that does
// not decode is ErrCompression (the delta was never whole, so its base is
// not in question); a delta that fails under a sound compression is not.
func TestUndoCompressionLayerFails(t *testing.T) {
	base := []byte(strings.Repeat("base version line\n", 2000))
	target := append(append([]byte{}, base[:len(base)/2]...), "one more line\n"...)
	target = append(target, base[len(base)/2:]...)
	for _, im := range []string{"zstd", "br", "gzip", "deflate"} {
		var coded bytes.Buffer
		if err := EncodeList([]string{"vcdiff", im}, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &coded); err != nil {
			t.Fatal(err)
		}
		b := coded.Bytes()
		var out bytes.Buffer
		err := Undo([]string{"vcdiff", im}, bytes.NewReader(base), int64(len(base)), bytes.NewReader(b[:len(b)/2]), &out)
		if !errors.Is(err, ErrCompression) || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s cut short: %v; want ErrCompression and ErrCorrupt", im, err)
		}
		var delta bytes.Buffer
		if err := Encode("vcdiff", bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &delta); err != nil {
			t.Fatal(err)
		}
		d := delta.Bytes()
		var sound bytes.Buffer
		if err := Compress(&sound, bytes.NewReader(d[:len(d)/2]), im, int64(len(d)/2)); err != nil {
			t.Fatal(err)
		}
		err = Undo([]string{"vcdiff", im}, bytes.NewReader(base), int64(len(base)), &sound, &out)
		if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrCompression) {
			t.Errorf("%s over a delta cut short: %v; want ErrCorrupt, not ErrCompression", im, err)
		}
	}
}
