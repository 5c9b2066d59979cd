package cmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/fetch"
)

// rangeOrigin serves data with http.ServeContent, a strong ETag,
// Repr-Digest and a Content-Digest for every body; hold, when set, may keep
// a request waiting.
type rangeOrigin struct {
	data   []byte
	mu     sync.Mutex
	hold   func(r *http.Request) bool
	tamper func(h http.Header)
}

func digestField(b []byte) string {
	s := sha256.Sum256(b)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"
}

func (o *rangeOrigin) serve(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		hold := o.hold
		o.mu.Unlock()
		if hold != nil && hold(r) {
			<-r.Context().Done()
			return
		}
		rec := httptest.NewRecorder()
		rec.Header().Set("ETag", `"v1"`)
		http.ServeContent(rec, r, "f", time.Time{}, bytes.NewReader(o.data))
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Repr-Digest", digestField(o.data))
		if r.Method == http.MethodGet && rec.Code < 300 {
			w.Header().Set("Content-Digest", digestField(rec.Body.Bytes()))
		}
		if o.tamper != nil {
			o.tamper(w.Header())
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(s.Close)
	return s
}

func testData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>9)
	}
	return b
}

func decodeVerdict(t *testing.T, out string) jsonVerdict {
	t.Helper()
	var v jsonVerdict
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	return v
}

func results(v jsonVerdict) map[string]string {
	m := map[string]string{}
	for _, d := range v.Digests {
		m[d.Field] = d.Result
	}
	return m
}

func TestGetRangeSingle(t *testing.T) {
	o := &rangeOrigin{data: []byte(helloBody)}
	srv := o.serve(t)
	code, out, errOut := runHdig(t, "get", "-r", "10-18", srv.URL)
	// The part's Content-Digest matched; it proves the part, not the
	// representation: unverified, as --require-digest's exit 3 says.
	if code != 0 || out != helloBody[10:] || !strings.Contains(errOut, "⚠ unverified: Content-Digest sha-256 matched this message's content") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	dst := filepath.Join(t.TempDir(), "part")
	code, out, errOut = runHdig(t, "get", "-r", "-9", "--json", "-o", dst, srv.URL)
	v := decodeVerdict(t, out)
	if code != 0 || v.Status != 206 || v.Transfer.Strategy != "ranges" || results(v)["Repr-Digest"] != "ignored" || results(v)["Content-Digest"] != "match" {
		t.Fatalf("exit %d, %+v; stderr %s", code, v, errOut)
	}
	assertFile(t, dst, helloBody[10:])
}

func TestGetRangeMultipart(t *testing.T) {
	data := testData(5000)
	o := &rangeOrigin{data: data}
	srv := o.serve(t)
	dst := filepath.Join(t.TempDir(), "parts")
	code, out, errOut := runHdig(t, "get", "-r", "0-99,1000-1999,-10", "--json", "-o", dst, srv.URL)
	v := decodeVerdict(t, out)
	if code != 0 || v.Transfer.Pieces != 3 || v.Transfer.Strategy != "ranges" || results(v)["Content-Digest"] != "match" {
		t.Fatalf("exit %d, %+v; stderr %s", code, v, errOut)
	}
	want := string(data[:100]) + string(data[1000:2000]) + string(data[4990:])
	assertFile(t, dst, want)
}

func TestGetRangeLies(t *testing.T) {
	o := &rangeOrigin{data: testData(5000), tamper: func(h http.Header) {
		if h.Get("Content-Range") != "" {
			h.Set("Content-Range", "bytes 1-100/5000")
		}
	}}
	srv := o.serve(t)
	dst := filepath.Join(t.TempDir(), "x")
	code, _, errOut := runHdig(t, "get", "-r", "0-99", "-o", dst, srv.URL)
	if code != ExitProtocol || !strings.Contains(errOut, "Content-Range bytes 1-100/5000, asked bytes=0-99") {
		t.Fatalf("exit %d, want %d: %s", code, ExitProtocol, errOut)
	}
	assertNoFile(t, dst)
	assertNoFile(t, dst+fetch.PartSuffix)
}

func TestGetParallel(t *testing.T) {
	data := testData(3 << 20)
	srv := (&rangeOrigin{data: data}).serve(t)
	dst := filepath.Join(t.TempDir(), "big")
	code, out, errOut := runHdig(t, "get", "--parallel", "3", "--json", "-o", dst, srv.URL)
	v := decodeVerdict(t, out)
	if code != 0 || v.Verdict != "verified" || v.Transfer.Strategy != "ranges" || v.Transfer.Pieces != 3 || v.Transfer.Received != int64(len(data)) {
		t.Fatalf("exit %d, %+v; stderr %s", code, v, errOut)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "3 pieces") {
		t.Errorf("stderr %q, want the verdict line alone (no progress on a pipe)", errOut)
	}
	assertFile(t, dst, string(data))
}

// To stdout the body is spooled anyway: it comes in verified range pieces
// as with -o, and is released only once the whole matched; a whole that
// does not match its Repr-Digest releases nothing and exits 1.
func TestGetParallelStdout(t *testing.T) {
	data := testData(3 << 20)
	srv := (&rangeOrigin{data: data}).serve(t)
	code, out, errOut := runHdig(t, "get", "--parallel", "3", srv.URL)
	if code != 0 || out != string(data) || !strings.Contains(errOut, "3 pieces") {
		t.Fatalf("exit %d, %d bytes out of %d; stderr %s", code, len(out), len(data), errOut)
	}
	lying := (&rangeOrigin{data: data, tamper: func(h http.Header) { h.Set("Repr-Digest", digestField(nil)) }}).serve(t)
	code, out, errOut = runHdig(t, "get", "--parallel", "3", lying.URL)
	if code != ExitIntegrity || out != "" || !strings.Contains(errOut, "mismatch Repr-Digest") {
		t.Fatalf("exit %d, %d bytes out, want %d and none; stderr %s", code, len(out), ExitIntegrity, errOut)
	}
}

// To stdout without --parallel the body comes in one stream even when it
// is large enough for pieces: one stream into the spool costs no more wall
// time there and keeps peak RSS lower (bench/get.sh, README Performance).
func TestGetStdoutOneStreamByDefault(t *testing.T) {
	data := testData(17 << 20) // above the size from which -o takes pieces
	var ranges atomic.Int32
	o := &rangeOrigin{data: data}
	o.hold = func(r *http.Request) bool {
		if r.Header.Get("Range") != "" {
			ranges.Add(1)
		}
		return false
	}
	srv := o.serve(t)
	code, out, errOut := runHdig(t, "get", srv.URL)
	if code != 0 || out != string(data) || ranges.Load() != 0 {
		t.Fatalf("exit %d, %d bytes out of %d, %d range requests, want 0; stderr %s", code, len(out), len(data), ranges.Load(), errOut)
	}
}

// TestGetInterruptContinue stops a download once a piece is saved, then
// resumes it with -C and checks fewer bytes came the second time.
func TestGetInterruptContinue(t *testing.T) {
	data := testData(3 << 20)
	o := &rangeOrigin{data: data}
	o.hold = func(r *http.Request) bool { return strings.HasPrefix(r.Header.Get("Range"), "bytes=2097152-") }
	srv := o.serve(t)
	dst := filepath.Join(t.TempDir(), "big")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(dst + fetch.SidecarSuffix); err == nil {
				cancel()
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	code, _, errOut := runHdigCtx(t, ctx, "get", "--parallel", "3", "-o", dst, srv.URL)
	if code != ExitInterrupted || !strings.Contains(errOut, "kept: run the same command with -C") {
		t.Fatalf("exit %d, want 130: %s", code, errOut)
	}
	assertNoFile(t, dst)
	o.mu.Lock()
	o.hold = nil
	o.mu.Unlock()
	code, out, errOut := runHdig(t, "get", "-C", "-", "--json", "-o", dst, srv.URL)
	v := decodeVerdict(t, out)
	if code != 0 || v.Verdict != "verified" || v.Transfer.Received >= int64(len(data)) || v.Transfer.Received == 0 {
		t.Fatalf("exit %d, received %d of %d: %+v; stderr %s", code, v.Transfer.Received, len(data), v, errOut)
	}
	assertFile(t, dst, string(data))
	assertNoFile(t, dst+fetch.PartSuffix)
	assertNoFile(t, dst+fetch.SidecarSuffix)
	// Again on the complete file: no body bytes.
	code, out, _ = runHdig(t, "get", "-C", "--json", "-o", dst, srv.URL)
	if v := decodeVerdict(t, out); code != 0 || v.Transfer.Received != 0 || v.Transfer.Strategy != "not-modified" {
		t.Fatalf("exit %d, %+v", code, v)
	}
}

func TestGetProgressSilent(t *testing.T) {
	srv := (&rangeOrigin{data: testData(1 << 20)}).serve(t)
	code, _, errOut := runHdig(t, "get", "-o", filepath.Join(t.TempDir(), "f"), srv.URL)
	if code != 0 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "✔ verified") {
		t.Fatalf("exit %d, stderr %q: want only the verdict on a pipe", code, errOut)
	}
	if _, ok := progressFor(&IOStreams{StderrTTY: false}, false).(fetch.NoProgress); !ok {
		t.Error("progress on a pipe")
	}
	if _, ok := progressFor(&IOStreams{StderrTTY: true}, true).(fetch.NoProgress); !ok {
		t.Error("progress with -s")
	}
	var buf bytes.Buffer
	p := newBars(&buf)
	p.Start(tinyBody, 0) // a smaller body draws nothing (TestBarsTinyAndSingle)
	bar := p.Piece(0, tinyBody, 0)
	bar.Add(tinyBody)
	bar.Done(true)
	p.Finish()
	if !strings.Contains(buf.String(), "total") {
		t.Errorf("bars drew %q", buf.String())
	}
}

func TestGetRangeUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--parallel", "2", "-N"},
		{"--parallel", strconv.Itoa(fetch.MaxParallel + 1), "-o", "f"},
		{"-C"},
		{"-r", "0-1", "--compressed"},
		{"-r", "5-1"},
		{"-C", "-r", "0-1", "-o", "f"},
		{"-C", "-H", "Range: bytes=0-1", "-o", "f"},
		{"-C", "x", "-o", "f"},
	} {
		all := append(append([]string{"get"}, args...), "http://127.0.0.1:1/")
		if code, _, errOut := runHdig(t, all...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errOut)
		}
	}
}

// TestGetRangeWholeRepresentation: a 206 whose Content-Range covers every
// byte (-r 0-, or a range the origin widened to all of it) encloses the
// whole representation, so its Repr-Digest is compared with it. It was
// "ignored" as any partial content's: a Repr-Digest naming other bytes
// passed as unverified, exit 0, and a matching one did not count for
// --require-digest (exit 3).
func TestGetRangeWholeRepresentation(t *testing.T) {
	whole := fmt.Sprintf("bytes 0-%d/%d", len(helloBody)-1, len(helloBody))
	tests := []struct {
		name     string
		header   map[string]string
		args     []string
		wantCode int
		wantErr  string
	}{
		{name: "Repr-Digest of other bytes", header: map[string]string{"Content-Range": whole, "Repr-Digest": emptySHA256},
			wantCode: ExitIntegrity, wantErr: "✖ mismatch Repr-Digest sha-256"},
		{name: "matching Repr-Digest under --require-digest", header: map[string]string{"Content-Range": whole, "Repr-Digest": helloSHA256},
			args: []string{"--require-digest"}, wantCode: ExitOK, wantErr: "✔ verified Repr-Digest sha-256"},
		{name: "a part of it stays partial", header: map[string]string{"Content-Range": fmt.Sprintf("bytes 0-%d/%d", len(helloBody)-1, len(helloBody)+1), "Repr-Digest": emptySHA256},
			args: []string{"-r", fmt.Sprintf("0-%d", len(helloBody)-1)}, wantCode: ExitOK, wantErr: "⚠ unverified"},
		{name: "unknown length stays partial", header: map[string]string{"Content-Range": fmt.Sprintf("bytes 0-%d/*", len(helloBody)-1), "Repr-Digest": emptySHA256},
			wantCode: ExitOK, wantErr: "⚠ unverified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := origin{status: http.StatusPartialContent, header: tt.header, body: []byte(helloBody)}.serve(t)
			dst := filepath.Join(t.TempDir(), "out")
			code, _, errOut := runHdig(t, append(append([]string{"get", "-r", "0-", "-o", dst}, tt.args...), srv.URL)...) // a later -r wins
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, want %d %q: %s", code, tt.wantCode, tt.wantErr, errOut)
			}
			if tt.wantCode != ExitOK {
				assertNoFile(t, dst)
			}
		})
	}
}
