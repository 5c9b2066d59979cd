package fetch

import (
	"errors"
	"strings"
	"testing"
)

// TestDecoderUnsupported: a coding hdig does not know is
// ErrUnsupportedCoding, which hdig check tells apart from a body that does
// not decode (a skip, not a failure), by errors.Is, not by message text.
func TestDecoderUnsupported(t *testing.T) {
	if _, _, err := Decoder(strings.NewReader("x"), "gzip, x-unknown"); !errors.Is(err, ErrUnsupportedCoding) {
		t.Errorf("x-unknown: %v, want ErrUnsupportedCoding", err)
	}
	if _, _, err := Decoder(strings.NewReader("x"), "gzip"); err == nil || errors.Is(err, ErrUnsupportedCoding) {
		t.Errorf("a gzip body that is not gzip: %v, want a decoding error", err)
	}
}
