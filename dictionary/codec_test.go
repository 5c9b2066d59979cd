package dictionary

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// versions returns two versions of a source-like text: v2 edits v1 here and
// there and grows it, as a new release does.
func versions() (v1, v2 []byte) {
	var a, b bytes.Buffer
	for i := 0; i < 3000; i++ {
		line := fmt.Sprintf("func handler%d(w http.ResponseWriter, r *http.Request) { serve(w, r, %d) }\n", i, i*7)
		a.WriteString(line)
		if i%97 == 0 {
			fmt.Fprintf(&b, "// handler%d changed in v2\n", i)
		}
		b.WriteString(line)
	}
	return a.Bytes(), b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	v1, v2 := versions()
	for _, coding := range []string{CodingDCB, CodingDCZ} {
		enc, err := Encode(coding, v2, v1)
		if err != nil {
			t.Fatalf("%s: %v", coding, err)
		}
		h, _, err := SplitHeader(coding, enc)
		if err != nil || h != HashOf(v1) {
			t.Fatalf("%s: header names %x, %v; want %x", coding, h, err, HashOf(v1))
		}
		dec, err := Decode(coding, enc, v1, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", coding, err)
		}
		if !bytes.Equal(dec, v2) {
			t.Fatalf("%s: round trip differs: %d bytes, want %d", coding, len(dec), len(v2))
		}
		// A delta against the previous version is far smaller than the text.
		if len(enc)*20 > len(v2) {
			t.Errorf("%s: %d bytes for a %d-byte text that differs little from the dictionary", coding, len(enc), len(v2))
		}
		t.Logf("%s: %d -> %d bytes", coding, len(v2), len(enc))
	}
}

func TestRoundTripEmptyAndTiny(t *testing.T) {
	for _, coding := range []string{CodingDCB, CodingDCZ} {
		for _, data := range [][]byte{{}, []byte("x")} {
			enc, err := Encode(coding, data, []byte("d"))
			if err != nil {
				t.Fatalf("%s: %v", coding, err)
			}
			dec, err := Decode(coding, enc, []byte("d"), Limits{})
			if err != nil || !bytes.Equal(dec, data) {
				t.Fatalf("%s %q: got %q, %v", coding, data, dec, err)
			}
		}
		if _, err := Encode(coding, []byte("x"), nil); err == nil {
			t.Errorf("%s: encoded with an empty dictionary", coding)
		}
	}
}

func TestDecodeWrongDictionary(t *testing.T) {
	v1, v2 := versions()
	for _, coding := range []string{CodingDCB, CodingDCZ} {
		enc, _ := Encode(coding, v2, v1)
		other := append([]byte("x"), v1...)
		if _, err := Decode(coding, enc, other, Limits{}); !errors.Is(err, ErrWrongDictionary) {
			t.Errorf("%s: got %v, want %v", coding, err, ErrWrongDictionary)
		}
	}
}

func TestDecodeRejectsBadHeaders(t *testing.T) {
	dict := []byte("dict")
	for _, coding := range []string{CodingDCB, CodingDCZ} {
		enc, _ := Encode(coding, []byte("data"), dict)
		n := HeaderLen(coding)
		if _, err := Decode(coding, enc[:n-1], dict, Limits{}); err == nil {
			t.Errorf("%s: accepted a short header", coding)
		}
		bad := bytes.Clone(enc)
		bad[0] ^= 1
		if _, err := Decode(coding, bad, dict, Limits{}); err == nil {
			t.Errorf("%s: accepted a wrong magic", coding)
		}
		if _, err := Decode(coding, enc[:len(enc)-2], dict, Limits{}); err == nil {
			t.Errorf("%s: accepted a truncated stream", coding)
		}
	}
	other := CodingDCZ
	enc, _ := Encode(CodingDCB, []byte("data"), dict)
	if _, err := Decode(other, enc, dict, Limits{}); err == nil {
		t.Error("decoded a dcb body as dcz")
	}
	if _, err := Decode("br", enc, dict, Limits{}); err == nil {
		t.Error("decoded an unknown coding")
	}
}

func TestDecodeCap(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefgh"), 1<<17) // 1 MiB, compresses to little
	dict := []byte("dictionary")
	for _, coding := range []string{CodingDCB, CodingDCZ} {
		enc, _ := Encode(coding, data, dict)
		_, err := Decode(coding, enc, dict, Limits{MaxOutput: int64(len(data)) - 1})
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s absolute cap: got %v, want %v", coding, err, ErrTooLarge)
		}
		_, err = Decode(coding, enc, dict, Limits{MaxRatio: 10})
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s ratio cap: got %v, want %v", coding, err, ErrTooLarge)
		}
		if out, err := Decode(coding, enc, dict, Limits{MaxOutput: int64(len(data))}); err != nil || len(out) != len(data) {
			t.Errorf("%s exact cap: got %d bytes, %v", coding, len(out), err)
		}
	}
}

// The sample from rfc-notes §5, made by the C zstd CLI: `{"hello": "world",
// "answer": 42}` + LF against the dictionary `{"hello": "world"}` + LF.
func TestDecodeDCZSample(t *testing.T) {
	body, _ := hex.DecodeString("5e2a4d182000000044aff4ab2d7c3250525675a08f0cfa9591168cffe51791c5f5bbc417c15a6c3828b52ffd2421b50000802c2022616e73776572223a2034327d0a0100364f2006e698fb")
	got, err := DecodeDCZ(body, []byte("{\"hello\": \"world\"}\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"hello\": \"world\", \"answer\": 42}\n"; string(got) != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestDCZWindowLimit(t *testing.T) {
	cases := map[int]int64{0: 8 << 20, 1 << 20: 8 << 20, 8 << 20: 10 << 20, 100 << 20: 125 << 20, 200 << 20: 128 << 20}
	for dict, want := range cases {
		if got := DCZWindowLimit(dict); got != want {
			t.Errorf("dictionary %d: got %d, want %d", dict, got, want)
		}
	}
	for _, c := range []struct {
		dict, data, want int
		single           bool
	}{
		{0, 0, 1 << 10, true}, {100, 900, 1 << 10, true}, {1000, 100, 2 << 10, true}, {3 << 20, 1 << 20, 4 << 20, true},
		{8 << 20, 100 << 20, 8 << 20, false}, {9 << 20, 9 << 20, 32 << 20, true}, {13 << 20, 17 << 20, 16 << 20, false},
		{100 << 20, 100 << 20, 128 << 20, true}, {200 << 20, 1, 128 << 20, true}, {200 << 20, 129 << 20, 128 << 20, false},
	} {
		w, single := dczFrame(c.dict, c.data)
		if w != c.want || single != c.single {
			t.Errorf("frame for %d + %d: got window %d, single %v; want %d, %v", c.dict, c.data, w, single, c.want, c.single)
		}
	}
}

// The frame dcz writes declares a window within the RFC 9842 limit.
func TestDCZFrameWindow(t *testing.T) {
	v1, v2 := versions()
	big := bytes.Repeat(v2, 10) // beyond one block, so the header carries a window
	enc, err := EncodeDCZ(big, v1)
	if err != nil {
		t.Fatal(err)
	}
	var h zstd.Header
	if err := h.Decode(enc[HeaderLen(CodingDCZ):]); err != nil {
		t.Fatal(err)
	}
	if h.DictionaryID != 0 {
		t.Errorf("frame names dictionary ID %d; a raw dictionary has none", h.DictionaryID)
	}
	if w, err := FrameWindow(enc[HeaderLen(CodingDCZ):]); err != nil || w == 0 || w > uint64(DCZWindowLimit(len(v1))) {
		t.Errorf("window %d, %v; want within the limit %d", w, err, DCZWindowLimit(len(v1)))
	}
}

// One Encoder serves many bodies, from several goroutines, and each
// decodes back.
func TestEncoderReuse(t *testing.T) {
	v1, v2 := versions()
	for _, coding := range []string{CodingDCB, CodingDCZ} {
		e, err := NewEncoder(coding, v1, len(v2))
		if err != nil {
			t.Fatal(err)
		}
		if e.Coding() != coding || e.Hash() != HashOf(v1) {
			t.Fatalf("%s: encoder says %s, %x", coding, e.Coding(), e.Hash())
		}
		errs := make(chan error, 4)
		for i := 0; i < 4; i++ {
			go func(i int) {
				data := v2[:len(v2)-i*1000]
				enc, err := e.Encode(data)
				if err == nil {
					var dec []byte
					if dec, err = Decode(coding, enc, v1, Limits{}); err == nil && !bytes.Equal(dec, data) {
						err = fmt.Errorf("body %d differs after the round trip", i)
					}
				}
				errs <- err
			}(i)
		}
		for i := 0; i < 4; i++ {
			if err := <-errs; err != nil {
				t.Errorf("%s: %v", coding, err)
			}
		}
		e.Close()
	}
	if _, err := NewEncoder("gzip", v1, 0); err == nil {
		t.Error("made an encoder for gzip")
	}
}

// A dictionary larger than the largest power-of-two window within the RFC
// 9842 limit (9 MiB: limit 11.25 MiB, so 8 MiB) must still be reachable from
// the first byte: a body equal to it but for a few bytes is a tiny dcz, and
// the frame declares a window within the limit.
func TestDCZDictionaryBeyondPowerOfTwoWindow(t *testing.T) {
	dict := make([]byte, 9<<20)
	x := uint64(88172645463325252)
	for i := range dict {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		dict[i] = byte(x)
	}
	data := bytes.Clone(dict)
	for i := 0; i < len(data); i += 1 << 20 {
		data[i] ^= 0xFF
	}
	enc, err := EncodeDCZ(data, dict)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) > 64<<10 {
		t.Errorf("dcz of a body that differs from its 9 MiB dictionary in 9 bytes: %d bytes, want under 64 KiB", len(enc))
	}
	if w, err := FrameWindow(enc[HeaderLen(CodingDCZ):]); err != nil || w == 0 || w > uint64(DCZWindowLimit(len(dict))) {
		t.Errorf("window %d, %v; want within the limit %d", w, err, DCZWindowLimit(len(dict)))
	}
	dec, err := DecodeDCZ(enc, dict, Limits{})
	if err != nil || !bytes.Equal(dec, data) {
		t.Fatalf("round trip: %d bytes, %v", len(dec), err)
	}
}

// An Encoder prepared for small bodies still keeps a body beyond the RFC
// 9842 limit within it: its frame is not single-segment.
func TestEncoderBodyBeyondLimit(t *testing.T) {
	dict := []byte("dictionary")
	e, err := NewEncoder(CodingDCZ, dict, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	data := bytes.Repeat([]byte("0123456789abcdef"), (9<<20)/16)
	enc, err := e.Encode(data)
	if err != nil {
		t.Fatal(err)
	}
	var h zstd.Header
	if err := h.Decode(enc[HeaderLen(CodingDCZ):]); err != nil {
		t.Fatal(err)
	}
	if h.SingleSegment || h.WindowSize > uint64(DCZWindowLimit(len(dict))) {
		t.Errorf("single segment %v, window %d; want a window within %d", h.SingleSegment, h.WindowSize, DCZWindowLimit(len(dict)))
	}
	if dec, err := DecodeDCZ(enc, dict, Limits{}); err != nil || !bytes.Equal(dec, data) {
		t.Fatalf("round trip: %d bytes, %v", len(dec), err)
	}
}

// A frame declaring a window beyond the limit is refused, whether in its
// window descriptor or, single-segment, as its content size.
func TestDecodeDCZRefusesLargeWindow(t *testing.T) {
	dict := []byte("dict")
	data := bytes.Repeat([]byte("z"), 9<<20) // over the 8 MiB limit for a tiny dictionary
	for _, single := range []bool{true, false} {
		z, err := zstd.NewWriter(nil, zstd.WithEncoderDictRaw(0, dict), zstd.WithWindowSize(16<<20), zstd.WithSingleSegment(single))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := AppendHeader(nil, CodingDCZ, HashOf(dict))
		body = z.EncodeAll(data, body)
		z.Close()
		_, err = DecodeDCZ(body, dict, Limits{})
		if err == nil || !strings.Contains(err.Error(), "window") {
			t.Errorf("single segment %v: got %v, want a window error", single, err)
		}
	}
}

// Large-window Brotli (window bits beyond 24) is not RFC 7932 Brotli and
// exceeds RFC 9842's 16 MB: it is refused.
func TestDecodeDCBRefusesLargeWindow(t *testing.T) {
	dict := []byte("dict")
	body, _ := AppendHeader(nil, CodingDCB, HashOf(dict))
	if _, err := DecodeDCB(append(body, 0x11, 0x3e, 0x00, 0x03), dict, Limits{}); err == nil || !strings.Contains(err.Error(), "window") {
		t.Fatalf("got %v, want a window error", err)
	}
}

// A dictionary up to 1 MiB is attached to the Brotli encoder in chunks;
// matches that straddle chunk boundaries still decode with the dictionary
// attached whole, as RFC 9842 clients attach it.
func TestDCBChunkedDictionary(t *testing.T) {
	var d bytes.Buffer
	for i := 0; d.Len() < 300<<10; i++ {
		fmt.Fprintf(&d, "record %d: %x\n", i, uint32(i)*2654435761)
	}
	dict := d.Bytes()
	pds, err := prepareDCB(dict)
	if err != nil || len(pds) < 2 || len(pds) > dcbMaxChunks {
		t.Fatalf("prepareDCB of %d bytes: %d chunks, %v; want 2 to %d", len(dict), len(pds), err, dcbMaxChunks)
	}
	var data []byte
	for _, at := range []int{dcbChunk, 2 * dcbChunk, 3 * dcbChunk, 4 * dcbChunk} {
		data = append(data, dict[at-5000:at+5000]...)
		data = append(data, "an edit between the copies\n"...)
	}
	enc, err := Encode(CodingDCB, data, dict)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeDCB(enc, dict, Limits{})
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decode with the whole dictionary: %v, equal %v", err, bytes.Equal(got, data))
	}
	if len(enc) > len(data)/10 {
		t.Errorf("%d bytes for %d bytes copied from the dictionary: want the copies found", len(enc), len(data))
	}
}
