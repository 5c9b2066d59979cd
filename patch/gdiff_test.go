package patch

import (
	"bytes"
	"errors"
	"testing"
)

func encodeGDIFF(t testing.TB, base, target []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := EncodeGDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &out, WithWindowSize(1<<20)); err != nil {
		t.Fatalf("EncodeGDIFF: %v", err)
	}
	return out.Bytes()
}

func decodeGDIFF(base, delta []byte, opts ...Option) ([]byte, error) {
	var out bytes.Buffer
	err := DecodeGDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(delta), &out, opts...)
	return out.Bytes(), err
}

func TestGDIFFRoundTrip(t *testing.T) {
	sets := append(dataSets(t), dataSet{"empty target", []byte("abc"), nil}, dataSet{"empty base", nil, []byte("hello")})
	for _, ds := range sets {
		t.Run(ds.name, func(t *testing.T) {
			delta := encodeGDIFF(t, ds.base, ds.target)
			got, err := decodeGDIFF(ds.base, delta)
			if err != nil {
				t.Fatalf("DecodeGDIFF: %v", err)
			}
			if !bytes.Equal(got, ds.target) {
				t.Fatalf("DecodeGDIFF(EncodeGDIFF) differs from the target")
			}
			t.Logf("%s: %d bytes", ds.name, len(delta))
		})
	}
}

// gdiffTests are hand-assembled deltas using every command.
var gdiffTests = []struct {
	name, base, delta, want string
	err                     error
}{
	{"data", "", "d1ffd1ff04 03 616263 00", "abc", nil},
	{"data ushort", "", "d1ffd1ff04 f7 0002 6869 00", "hi", nil},
	{"data int", "", "d1ffd1ff04 f8 00000002 6869 00", "hi", nil},
	{"copy ushort ubyte", "0123456789", "d1ffd1ff04 f9 0002 03 00", "234", nil},
	{"copy ushort ushort", "0123456789", "d1ffd1ff04 fa 0000 0002 00", "01", nil},
	{"copy ushort int", "0123456789", "d1ffd1ff04 fb 0008 00000002 00", "89", nil},
	{"copy int ubyte", "0123456789", "d1ffd1ff04 fc 00000001 01 00", "1", nil},
	{"copy int ushort", "0123456789", "d1ffd1ff04 fd 00000001 0001 00", "1", nil},
	{"copy int int", "0123456789", "d1ffd1ff04 fe 00000009 00000001 00", "9", nil},
	{"copy long int", "0123456789", "d1ffd1ff04 ff 0000000000000005 00000002 00", "56", nil},
	{"bad magic", "", "d1ffd1ff03 00", "", ErrCorrupt},
	{"no eof", "", "d1ffd1ff04 01 61", "", ErrCorrupt},
	{"trailing", "", "d1ffd1ff04 00 00", "", ErrCorrupt},
	{"copy beyond", "0123", "d1ffd1ff04 f9 0002 03 00", "", ErrCorrupt},
	{"negative length", "0123", "d1ffd1ff04 fe 00000000 ffffffff 00", "", ErrCorrupt},
	{"short data", "", "d1ffd1ff04 05 6162", "", ErrCorrupt},
}

func TestDecodeGDIFF(t *testing.T) {
	for _, tt := range gdiffTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeGDIFF([]byte(tt.base), mustHex(t, tt.delta))
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("DecodeGDIFF error = %v, want %v", err, tt.err)
			}
			if err == nil && string(got) != tt.want {
				t.Errorf("DecodeGDIFF = %q, want %q", got, tt.want)
			}
		})
	}
}
