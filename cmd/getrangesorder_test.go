package cmd

import (
	"bytes"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
)

// rangeAnswerOrigin answers every request with a 206 of data's bytes in the
// given parts ("first-last" each): one part as a plain 206, several as
// multipart/byteranges, whatever Range asked.
func rangeAnswerOrigin(t *testing.T, data []byte, parts ...string) string {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		var first, last int
		if len(parts) == 1 {
			fmt.Sscanf(parts[0], "%d-%d", &first, &last)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(data)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[first : last+1])
			return
		}
		var b strings.Builder
		for _, p := range parts {
			fmt.Sscanf(p, "%d-%d", &first, &last)
			fmt.Fprintf(&b, "--B\r\nContent-Range: bytes %d-%d/%d\r\n\r\n%s\r\n", first, last, len(data), data[first:last+1])
		}
		b.WriteString("--B--\r\n")
		w.Header().Set("Content-Type", "multipart/byteranges; boundary=B")
		w.WriteHeader(http.StatusPartialContent)
		w.Write([]byte(b.String()))
	})
	return srv.URL
}

// The parts of a -r answer are written one after another, without their
// Content-Range: only the ranges asked, in the order asked, tell which
// bytes are where. An answer in another order, leaving a satisfiable
// range out, or repeating one is refused (exit 5, nothing written); one
// that coalesced adjacent ranges is the same bytes; one that coalesced
// overlapping ranges is written, with a warning that the bytes the
// ranges share come once.
func TestGetRangesInOrderAsked(t *testing.T) {
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	tests := []struct {
		name, ask string
		parts     []string
		code      int
		want      string // the file written; "" none
		warn      string
	}{
		{"as asked", "0-2,20-22", []string{"0-2", "20-22"}, 0, "012klm", ""},
		{"another order", "0-2,20-22", []string{"20-22", "0-2"}, ExitProtocol, "", "asked"},
		{"one left out", "0-2,20-22", []string{"0-2"}, ExitProtocol, "", "20-22"},
		{"one left out, multipart", "0-2,20-22,30-31", []string{"0-2", "30-31"}, ExitProtocol, "", "20-22"},
		{"one twice", "0-2,20-22", []string{"0-2", "0-2"}, ExitProtocol, "", "asked"},
		{"unsatisfiable left out", "0-2,100-200", []string{"0-2"}, 0, "012", ""},
		{"adjacent coalesced", "0-2,3-5", []string{"0-5"}, 0, "012345", ""},
		{"overlapping coalesced", "0-4,2-6,20-21", []string{"0-6", "20-21"}, 0, "0123456kl", "once"},
		{"contained coalesced", "0-9,2-4,20-21", []string{"0-9", "20-21"}, 0, "0123456789kl", "once"},
		{"contained coalesced, last", "0-9,2-4", []string{"0-9"}, 0, "0123456789", "once"},
		{"contained coalesced, twice", "0-2,0-2", []string{"0-2"}, 0, "012", "once"},
		{"contained sent apart", "0-9,2-4", []string{"0-9", "2-4"}, 0, "0123456789234", ""},
		// RFC 9110 §14.6: ranges separated by a small gap may be coalesced;
		// the bytes between them were not asked for and are not written.
		{"coalesced across a gap", "0-2,6-8", []string{"0-8"}, 0, "012678", ""},
		{"coalesced across a gap, multipart", "0-2,6-8,20-21", []string{"0-8", "20-21"}, 0, "012678kl", ""},
		{"coalesced across two gaps", "0-1,4-5,8-9", []string{"0-9"}, 0, "014589", ""},
		{"a later range in the gap", "0-2,6-8,4-4", []string{"0-8"}, ExitProtocol, "", "4-4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := rangeAnswerOrigin(t, data, tt.parts...)
			dst := filepath.Join(t.TempDir(), "f")
			code, _, errOut := runHdig(t, "get", "--no-cache", "-r", tt.ask, "-o", dst, url)
			if code != tt.code || (tt.warn != "" && !strings.Contains(errOut, tt.warn)) {
				t.Fatalf("exit %d, want %d (stderr naming %q): %s", code, tt.code, tt.warn, errOut)
			}
			if tt.want == "" {
				assertNoFile(t, dst)
				assertNoFile(t, dst+fetch.PartSuffix)
				return
			}
			assertFile(t, dst, tt.want)
		})
	}
}

// A coalesced part whose gap is larger than sending the ranges apart would
// cost carries bytes nobody asked for: refused, nothing written.
func TestGetRangesCoalescedGapBound(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 300)
	gap := httpfield.MaxCoalescedGap
	url := rangeAnswerOrigin(t, data, fmt.Sprintf("0-%d", 3+gap))
	dst := filepath.Join(t.TempDir(), "f")
	code, _, errOut := runHdig(t, "get", "--no-cache", "-r", fmt.Sprintf("0-2,%d-%d", 3+gap, 3+gap), "-o", dst, url)
	if code != 0 {
		t.Fatalf("a gap of %d bytes: exit %d, want 0: %s", gap, code, errOut)
	}
	assertFile(t, dst, "012"+string(data[3+gap]))
	url = rangeAnswerOrigin(t, data, fmt.Sprintf("0-%d", 4+gap))
	code, _, errOut = runHdig(t, "get", "--no-cache", "-r", fmt.Sprintf("0-2,%d-%d", 4+gap, 4+gap), "-o", dst+"2", url)
	if code != ExitProtocol {
		t.Fatalf("a gap of %d bytes: exit %d, want %d: %s", gap+1, code, ExitProtocol, errOut)
	}
	assertNoFile(t, dst+"2")
}
