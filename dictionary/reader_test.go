package dictionary

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// readerDict and readerData are a small version pair for the reader tests.
var (
	readerDict = []byte(strings.Repeat("function hello() { return 'world'; }\n", 40))
	readerData = []byte(strings.Repeat("function hello() { return 'world!'; }\n", 44))
)

// TestNewReader decodes dcb and dcz bodies as a stream, equal to the
// one-shot decoders, and refuses a body naming another dictionary, a short
// header and output beyond MaxOutput.
func TestNewReader(t *testing.T) {
	for _, coding := range []string{CodingDCB, CodingDCZ} {
		body, err := Encode(coding, readerData, readerDict)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAllStream(coding, body, readerDict, Limits{})
		if err != nil || !bytes.Equal(got, readerData) {
			t.Errorf("%s: got %d bytes, %v; want %d bytes", coding, len(got), err, len(readerData))
		}
		other := append([]byte("x"), readerDict...)
		if _, err := readAllStream(coding, body, other, Limits{}); !errors.Is(err, ErrWrongDictionary) {
			t.Errorf("%s against another dictionary: got %v, want ErrWrongDictionary", coding, err)
		}
		if _, err := readAllStream(coding, body[:HeaderLen(coding)-1], readerDict, Limits{}); err == nil || !strings.Contains(err.Error(), "header") {
			t.Errorf("%s with a short header: got %v, want a header error", coding, err)
		}
		lim := Limits{MaxOutput: int64(len(readerData) - 1)}
		if got, err := readAllStream(coding, body, readerDict, lim); !errors.Is(err, ErrTooLarge) || int64(len(got)) > lim.MaxOutput {
			t.Errorf("%s over MaxOutput: got %d bytes, %v; want at most %d and ErrTooLarge", coding, len(got), err, lim.MaxOutput)
		}
	}
}

func readAllStream(coding string, body, dict []byte, lim Limits) ([]byte, error) {
	r, err := NewReader(coding, bytes.NewReader(body), dict, lim)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// FuzzNewReader: the streaming decoder agrees with the one-shot decoder
// of the same coding: same bytes, or both fail; never more than the cap.
func FuzzNewReader(f *testing.F) {
	for _, coding := range []string{CodingDCB, CodingDCZ} {
		body, err := Encode(coding, readerData, readerDict)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(coding == CodingDCZ, body)
		f.Add(coding == CodingDCZ, body[:len(body)/2])
	}
	f.Fuzz(func(t *testing.T, dcz bool, body []byte) {
		coding := CodingDCB
		if dcz {
			coding = CodingDCZ
		}
		lim := Limits{MaxOutput: fuzzLimit}
		want, werr := Decode(coding, body, readerDict, lim)
		got, gerr := readAllStream(coding, body, readerDict, lim)
		if int64(len(got)) > lim.MaxOutput {
			t.Fatalf("%s: %d bytes out, cap %d", coding, len(got), lim.MaxOutput)
		}
		if werr == nil && (gerr != nil || !bytes.Equal(got, want)) {
			t.Fatalf("%s: one-shot decoded %d bytes; stream got %d bytes, %v", coding, len(want), len(got), gerr)
		}
		if gerr != nil && strings.Contains(gerr.Error(), "\n") {
			t.Fatalf("%s: error of several lines: %q", coding, gerr)
		}
	})
}
