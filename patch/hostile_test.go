package patch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
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

// decodeWithin decodes delta, failing the test if it takes longer than d
// (the decoder keeps running in the background then).
func decodeWithin(t *testing.T, d time.Duration, delta []byte, opts ...Option) []byte {
	t.Helper()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		out, err := decodeVCDIFF(nil, delta, opts...)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("DecodeVCDIFF: %v", r.err)
		}
		t.Logf("decoded %d bytes in %v", len(r.out), time.Since(start))
		return r.out
	case <-time.After(d):
		t.Fatalf("DecodeVCDIFF of a %d-byte delta still running after %v", len(delta), d)
	}
	return nil
}

// TestDecodeVCDIFFManySmallWindows: once the history is full, every window
// used to move the whole history (8 MiB) down to make room, so a delta of
// tiny windows cost 8 MiB of copying per 9 bytes.
func TestDecodeVCDIFFManySmallWindows(t *testing.T) {
	const histSize, small = 8 << 20, 5000
	delta := []byte{0xd6, 0xc3, 0xc4, 0, 0}
	// A RUN (code 0, size follows) of histSize bytes fills the history.
	delta = append(delta, vcdiffWindow(histSize, []byte{'r'}, appendVarint([]byte{0}, histSize))...)
	one := vcdiffWindow(1, []byte{'x'}, []byte{2}) // code 2: ADD of 1 byte
	for range small {
		delta = append(delta, one...)
	}
	out := decodeWithin(t, 2*time.Second, delta, WithHistory(histSize))
	if len(out) != histSize+small {
		t.Fatalf("decoded %d bytes, want %d", len(out), histSize+small)
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
// made each 5-byte empty window cost half a megabyte of clearing.
func TestDecodeVCDIFFBigSameCache(t *testing.T) {
	const windows = 50000
	empty := vcdiffWindow(0, nil, nil)
	timeOf := func(header []byte) time.Duration {
		delta := bytes.Clone(header)
		for range windows {
			delta = append(delta, empty...)
		}
		start := time.Now()
		if _, err := decodeVCDIFF(nil, delta); err != nil {
			t.Fatalf("DecodeVCDIFF: %v", err)
		}
		return time.Since(start)
	}
	dflt := timeOf(customTableDelta(t, 4, 3))
	big := timeOf(customTableDelta(t, 0, 252))
	t.Logf("%d empty windows: %v with 3 same caches, %v with 252", windows, dflt, big)
	if big > 10*dflt+100*time.Millisecond {
		t.Errorf("%d empty windows took %v with 252 same caches, %v with 3: window cost grows with the table's caches", windows, big, dflt)
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
// now it takes about twice its size (three times with -race).
func TestApplyDiffEShortLinesMemory(t *testing.T) {
	const lines = 1 << 20
	script := append([]byte("1a\n"), bytes.Repeat([]byte("x\n"), lines)...)
	script = append(script, ".\n"...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var out bytes.Buffer
	out.Grow(len(script) + 16)
	err := ApplyDiffE(bytes.NewReader([]byte("base\n")), 5, bytes.NewReader(script), &out)
	runtime.ReadMemStats(&after)
	if err != nil || out.Len() != 5+2*lines {
		t.Fatalf("ApplyDiffE: %d bytes, %v", out.Len(), err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte script allocated %d bytes", len(script), alloc)
	if limit := uint64(8*len(script) + 1<<20); alloc > limit {
		t.Errorf("a %d-byte script of %d short lines allocated %d bytes, want at most %d", len(script), lines, alloc, limit)
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
