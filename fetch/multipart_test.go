package fetch

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/httpfield"
)

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// serveRanges returns what http.ServeContent answers to a Range of alphabet.
func serveRanges(t *testing.T, rng string) (*http.Response, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Range", rng)
	http.ServeContent(rec, req, "a.txt", time.Time{}, strings.NewReader(alphabet))
	return rec.Result(), rec.Body.Bytes()
}

func TestByteRangesFromServeContent(t *testing.T) {
	resp, body := serveRanges(t, "bytes=0-4,10-14,-3")
	if resp.StatusCode != http.StatusPartialContent {
		t.Fatalf("status %d", resp.StatusCode)
	}
	asked, _ := httpfield.ParseRanges("0-4,10-14,-3")
	m, err := newByteRangesReader(bytes.NewReader(body), resp.Header.Get("Content-Type"), asked)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := alphabet[0:5] + alphabet[10:15] + alphabet[33:]; string(got) != want {
		t.Errorf("parts = %q, want %q", got, want)
	}
	if len(m.Parts) != 3 || m.Parts[2] != (ContentRange{First: 33, Last: 35, Total: 36}) {
		t.Errorf("Parts = %v", m.Parts)
	}
}

// multipartBody builds a multipart/byteranges body with boundary B.
func multipartBody(parts ...string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("--B\r\n" + p)
	}
	b.WriteString("\r\n--B--\r\n")
	return b.String()
}

var byteRangesTests = []struct {
	name, ct, body, want string
	err                  error
}{
	{"two parts", "", multipartBody("Content-Range: bytes 0-2/36\r\n\r\n012", "Content-Type: text/plain\r\nContent-Range: bytes 34-35/36\r\n\r\nyz"), "012yz", nil},
	{"preamble and LF", "", "preamble\r\n--B\n" + "content-range: bytes 0-1/36\n\n01\n--B--", "01", nil},
	{"coalesced", "", multipartBody("Content-Range: bytes 0-9/36\r\n\r\n0123456789"), "0123456789", nil},
	{"not asked", "", multipartBody("Content-Range: bytes 20-22/36\r\n\r\nklm"), "", ErrProtocol},
	{"lengths differ", "", multipartBody("Content-Range: bytes 0-2/36\r\n\r\n012", "Content-Range: bytes 34-35/37\r\n\r\nyz"), "012", ErrProtocol},
	{"unknown length", "", multipartBody("Content-Range: bytes 0-2/*\r\n\r\n012"), "", ErrProtocol},
	{"part too long", "", multipartBody("Content-Range: bytes 0-2/36\r\n\r\n0123"), "012", ErrProtocol},
	{"part too short", "", "--B\r\nContent-Range: bytes 0-2/36\r\n\r\n01", "01", ErrProtocol},
	{"no close", "", "--B\r\nContent-Range: bytes 0-2/36\r\n\r\n012\r\n", "012", ErrProtocol},
	{"no Content-Range", "", multipartBody("Content-Type: text/plain\r\n\r\n012"), "", ErrProtocol},
	{"bad header line", "", multipartBody("Content-Range bytes 0-2/36\r\n\r\n012"), "", ErrProtocol},
	{"long header line", "", multipartBody("X: " + strings.Repeat("a", 2000) + "\r\nContent-Range: bytes 0-2/36\r\n\r\n012"), "", ErrProtocol},
	{"many header lines", "", multipartBody(strings.Repeat("X: a\r\n", 20) + "Content-Range: bytes 0-2/36\r\n\r\n012"), "", ErrProtocol},
	{"too many parts", "", multipartBody("Content-Range: bytes 0-0/36\r\n\r\n0", "Content-Range: bytes 1-1/36\r\n\r\n1", "Content-Range: bytes 2-2/36\r\n\r\n2", "Content-Range: bytes 3-3/36\r\n\r\n3"), "012", ErrProtocol},
	{"no boundary", "", strings.Repeat("x\r\n", 600), "", ErrProtocol},
	{"long epilogue", "", multipartBody("Content-Range: bytes 0-2/36\r\n\r\n012") + strings.Repeat("e", 2000), "012", ErrProtocol},
	{"junk after delimiter", "", "--B\r\nContent-Range: bytes 0-2/36\r\n\r\n012\r\n--Bxyz\r\n", "012", ErrProtocol},
	{"wrong media type", "text/plain; boundary=B", "", "", ErrProtocol},
	{"long boundary", "multipart/byteranges; boundary=" + strings.Repeat("b", 71), "", "", ErrProtocol},
}

func TestByteRangesReader(t *testing.T) {
	asked, _ := httpfield.ParseRanges("0-2,-2,0-9")
	for _, tt := range byteRangesTests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.ct
			if ct == "" {
				ct = "multipart/byteranges; boundary=B"
			}
			var got []byte
			m, err := newByteRangesReader(strings.NewReader(tt.body), ct, asked)
			if err == nil {
				got, err = io.ReadAll(m)
			}
			if string(got) != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("read %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// FuzzMultipart checks that no body makes the reader panic, yield more
// bytes than it read, fail with more than one short line, or succeed with
// bytes that are not its parts'.
func FuzzMultipart(f *testing.F) {
	for _, tt := range byteRangesTests {
		f.Add([]byte(tt.body))
	}
	asked, _ := httpfield.ParseRanges("0-2,-2,0-9")
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := newByteRangesReader(bytes.NewReader(body), "multipart/byteranges; boundary=B", asked)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(m)
		if len(got) > len(body) {
			t.Fatalf("%d bytes out of a %d-byte body", len(got), len(body))
		}
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || len(msg) > 300 {
				t.Fatalf("error %q is not one short line", msg)
			}
			return
		}
		var n int64
		for _, p := range m.Parts {
			n += p.Len()
			if !within(asked, p.First, p.Last, p.Total) {
				t.Fatalf("part %v not asked", p)
			}
		}
		if n != int64(len(got)) {
			t.Fatalf("%d bytes for parts of %d", len(got), n)
		}
	})
}
