package patch

import (
	"bytes"
	"errors"
	"testing"
)

func TestEncodeUndo(t *testing.T) {
	base := text(11, 50_000)
	target := textEdits(base, 12, 40)
	lists := [][]string{
		{"vcdiff"}, {"gdiff"}, {"diffe"}, {"gzip"}, {"deflate"}, {},
		{"diffe", "gzip"}, {"gdiff", "deflate"}, {"VCDIFF;x=1"},
		{"vcdiff", "br"}, {"vcdiff", "zstd"}, {"gdiff", "zstd"}, {"br"}, {"zstd"},
	}
	for _, ims := range lists {
		var delta, got bytes.Buffer
		if err := EncodeList(ims, bytes.NewReader(base), int64(len(base)), bytes.NewReader(target), &delta); err != nil {
			t.Fatalf("EncodeList(%q): %v", ims, err)
		}
		if err := Undo(ims, bytes.NewReader(base), int64(len(base)), &delta, &got); err != nil {
			t.Fatalf("Undo(%q): %v", ims, err)
		}
		if !bytes.Equal(got.Bytes(), target) {
			t.Errorf("Undo(%q, EncodeList) differs from the target", ims)
		}
	}
}

func TestUndoErrors(t *testing.T) {
	tests := []struct {
		ims  []string
		body string
		want error
	}{
		{[]string{"bsdiff"}, "", ErrUnsupported},
		{[]string{"range"}, "", ErrUnsupported},
		{[]string{"gzip", "vcdiff"}, "", ErrUnsupported},
		{[]string{"vcdiff", "diffe"}, "", ErrUnsupported},
		{[]string{"gzip"}, "not gzip", ErrCorrupt},
		{[]string{"vcdiff", "zstd"}, "not zstd", ErrCorrupt},
		{[]string{"vcdiff", "br"}, "\xff\xff\xff", ErrCorrupt},
		{[]string{"zstd", "vcdiff"}, "", ErrUnsupported},
		{[]string{"vcdiff"}, "\xd6\xc3\xc4\x00\x01\x03", ErrUnsupported}, // no compressor ID 3
	}
	for _, tt := range tests {
		err := Undo(tt.ims, bytes.NewReader(nil), 0, bytes.NewReader([]byte(tt.body)), &bytes.Buffer{})
		if !errors.Is(err, tt.want) {
			t.Errorf("Undo(%q) error = %v, want %v", tt.ims, err, tt.want)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct{ prefix, want string }{
		{"\xd6\xc3\xc4\x00\x00", "vcdiff"},
		{"\xd1\xff\xd1\xff\x04", "gdiff"},
		{"1,2c\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Detect([]byte(tt.prefix)); got != tt.want {
			t.Errorf("Detect(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
	if s := Supported(); len(s) != 8 || !IsDelta(s[0]) || !IsDelta(InflatedIM) || IsDelta("gzip") {
		t.Errorf("Supported() = %q", s)
	}
}
