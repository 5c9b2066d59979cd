package cmd

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The RFC 9530 example body and its digests (rfc-notes §2).
const (
	helloBody   = "{\"hello\": \"world\"}\n"
	helloSHA256 = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:"
	helloSHA512 = "sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:"
	emptySHA256 = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
	overpadded  = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg==:"
	brValidHex  = "0b09807b2268656c6c6f223a2022776f726c64227d0a03"
	brRFCHex    = "8b08807b2268656c6c6f223a2022776f726c64227d0a03"
	brDigest256 = "sha-256=:d435Qo+nKZ+gLcUHn7GQtQ72hiBVAgqoLsZnZPiTGPk=:"
)

// origin serves a fixed response described by the test.
type origin struct {
	header      map[string]string
	headerLines map[string][]string // fields sent as several lines
	trailer     map[string]string
	status      int
	body        []byte
	chunked     bool
}

func (o origin) serve(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k := range o.trailer {
			w.Header().Add("Trailer", k)
		}
		for k, vs := range o.headerLines {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		for k, v := range o.header {
			w.Header().Set(k, v)
		}
		if !o.chunked && o.trailer == nil {
			w.Header().Set("Content-Length", fmt.Sprint(len(o.body)))
		}
		status := o.status
		if status == 0 {
			status = 200
		}
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			w.Write(o.body)
		}
		for k, v := range o.trailer {
			w.Header().Set(k, v)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGetAppendixB(t *testing.T) {
	tests := []struct {
		name     string
		origin   origin
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "B.1 full representation", origin: origin{header: map[string]string{"Content-Digest": helloSHA256, "Repr-Digest": helloSHA256}, body: []byte(helloBody)},
			wantCode: 0, wantOut: helloBody, wantErr: "✔ verified Repr-Digest sha-256 and Content-Digest sha-256"},
		{name: "B.2 HEAD", origin: origin{header: map[string]string{"Content-Digest": emptySHA256, "Repr-Digest": helloSHA256}, body: []byte(helloBody)},
			// The empty content's Content-Digest matches vacuously: it proves nothing of the representation.
			args: []string{"-I"}, wantCode: 0, wantOut: "Repr-Digest: " + helloSHA256, wantErr: "⚠ unverified: Content-Digest sha-256 matched this message's content"},
		{name: "B.4 brotli as published (erratum)", origin: origin{header: map[string]string{"Content-Encoding": "br", "Repr-Digest": brDigest256}},
			args: []string{"--compressed"}, wantCode: 1, wantErr: "✖ mismatch Repr-Digest sha-256"},
		{name: "B.4 brotli corrected", origin: origin{header: map[string]string{"Content-Encoding": "br", "Repr-Digest": brDigest256}},
			args: []string{"--compressed"}, wantCode: 0, wantOut: helloBody, wantErr: "✔ verified Repr-Digest sha-256"},
		{name: "B.11 trailer over-padded (erratum)", origin: origin{trailer: map[string]string{"Repr-Digest": overpadded}, body: []byte(helloBody)},
			wantCode: 0, wantOut: helloBody, wantErr: "Repr-Digest ignored"},
		{name: "B.11 trailer corrected", origin: origin{trailer: map[string]string{"Repr-Digest": helloSHA256}, body: []byte(helloBody)},
			args: []string{"--require-digest"}, wantCode: 0, wantOut: helloBody, wantErr: "✔ verified Repr-Digest sha-256"},
		{name: "C.2 sha-512 answer", origin: origin{header: map[string]string{"Repr-Digest": helloSHA512}, body: []byte(helloBody)},
			args: []string{"--want-repr", "sha=10"}, wantCode: 0, wantOut: helloBody, wantErr: "✔ verified Repr-Digest sha-512"},
		{name: "§2 two-member inconsistent", origin: origin{header: map[string]string{"Content-Digest": brDigest256 + "," + helloSHA512}, body: []byte(helloBody)},
			wantCode: 1, wantErr: "✖ mismatch Content-Digest sha-256"},
		{name: "mismatch", origin: origin{header: map[string]string{"Repr-Digest": emptySHA256}, body: []byte(helloBody)},
			wantCode: 1, wantErr: "want 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=, got RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg="},
		{name: "header and trailer disagree", origin: origin{header: map[string]string{"Repr-Digest": helloSHA256}, trailer: map[string]string{"Repr-Digest": emptySHA256}, body: []byte(helloBody)},
			wantCode: 1, wantErr: "differs between header and trailer"},
		{name: "no digest", origin: origin{body: []byte(helloBody)}, wantCode: 0, wantOut: helloBody, wantErr: "⚠ unverified"},
		{name: "no digest required", origin: origin{body: []byte(helloBody)}, args: []string{"--require-digest"}, wantCode: 3, wantErr: "✖ unverified"},
		{name: "md5 only not accepted", origin: origin{header: map[string]string{"Repr-Digest": "md5=:UFIauregE76D7gDe0/n0JA==:"}, body: []byte(helloBody)},
			args: []string{"--require-digest"}, wantCode: 3},
		{name: "md5 accepted", origin: origin{header: map[string]string{"Repr-Digest": "md5=:UFIauregE76D7gDe0/n0JA==:"}, body: []byte(helloBody)},
			args: []string{"--require-digest", "--accept", "md5"}, wantCode: 0, wantOut: helloBody, wantErr: "✔ verified Repr-Digest md5"},
		{name: "legacy Digest", origin: origin{header: map[string]string{"Digest": "SHA-256=RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg="}, body: []byte(helloBody)},
			wantCode: 0, wantOut: helloBody, wantErr: "obsolete"},
		{name: "404", origin: origin{status: 404, body: []byte("{\"title\": \"Not Found\"}")}, wantCode: 4, wantErr: "404 Not Found: {\"title\": \"Not Found\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.origin
			switch {
			case strings.Contains(tt.name, "brotli as published"):
				o.body = mustHex(t, brRFCHex)
			case strings.Contains(tt.name, "brotli corrected"):
				o.body = mustHex(t, brValidHex)
			}
			srv := o.serve(t)
			code, out, errOut := runHdig(t, append(append([]string{"get"}, tt.args...), srv.URL+"/items/123")...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, errOut)
			}
			if !strings.Contains(out, tt.wantOut) || (tt.wantOut == "" && out != "" && tt.wantCode != 0) {
				t.Errorf("stdout = %q, want it to contain %q", out, tt.wantOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.wantErr)
			}
		})
	}
}

func TestGetPartialB3(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") != "bytes=10-18" {
			t.Errorf("Range = %q", r.Header.Get("Range"))
		}
		w.Header().Set("Content-Range", "bytes 10-18/19")
		w.Header().Set("Content-Digest", "sha-256=:jjcgBDWNAtbYUXI37CVG3gRuGOAjaaDRGpIUFsdyepQ=:")
		w.Header().Set("Repr-Digest", helloSHA256)
		w.WriteHeader(http.StatusPartialContent)
		io.WriteString(w, helloBody[10:])
	}))
	defer srv.Close()
	code, out, errOut := runHdig(t, "get", "-H", "Range: bytes=10-18", "--json", "-o", filepath.Join(t.TempDir(), "part"), srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v jsonVerdict
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	results := map[string]string{}
	for _, d := range v.Digests {
		results[d.Field] = d.Result
	}
	// The part's Content-Digest proves the part, not the representation:
	// unverified, as --require-digest's exit 3 would say.
	if v.Verdict != "unverified" || results["Content-Digest"] != "match" || results["Repr-Digest"] != "ignored" {
		t.Errorf("verdict %s, digests %+v", v.Verdict, v.Digests)
	}
}

func TestGetOutputFileSafety(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out.json")
	os.WriteFile(dst, []byte("precious"), 0o644)
	bad := origin{header: map[string]string{"Repr-Digest": emptySHA256}, body: []byte(helloBody)}.serve(t)
	code, _, errOut := runHdig(t, "get", "-o", dst, bad.URL)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	assertFile(t, dst, "precious")
	assertNoFile(t, dst+".hdig-part")

	// A truncated body: Content-Length promises more than arrives.
	trunc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		io.WriteString(w, helloBody)
	}))
	defer trunc.Close()
	code, _, errOut = runHdig(t, "get", "-o", dst, trunc.URL)
	if code != 4 || !strings.Contains(errOut, "truncated") {
		t.Fatalf("exit %d, want 4 with truncated: %s", code, errOut)
	}
	assertFile(t, dst, "precious")
	assertNoFile(t, dst+".hdig-part")

	good := origin{header: map[string]string{"Repr-Digest": helloSHA256}, body: []byte(helloBody)}.serve(t)
	code, out, errOut := runHdig(t, "get", "-o", dst, "--json", good.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	assertFile(t, dst, helloBody)
	var v jsonVerdict
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Verdict != "verified" || v.Bytes != 19 || v.Transfer.Strategy != "full" || v.Transfer.Received != 19 {
		t.Errorf("json = %s (%v)", out, err)
	}
}

func TestGetTimeoutAndInterrupt(t *testing.T) {
	release := make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer stall.Close()
	defer close(release)
	dst := filepath.Join(t.TempDir(), "f")
	code, _, errOut := runHdig(t, "get", "--timeout", "200ms", "-o", dst, stall.URL)
	if code != 4 || !strings.Contains(errOut, "timed out") {
		t.Errorf("exit %d, want 4 with timed out: %s", code, errOut)
	}
	assertNoFile(t, dst)
	assertNoFile(t, dst+".hdig-part")

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	code, _, errOut = runHdigCtx(t, ctx, "get", "-o", dst, stall.URL)
	if code != 130 {
		t.Errorf("exit %d, want 130: %s", code, errOut)
	}
	assertNoFile(t, dst)
}

func TestGetUsage(t *testing.T) {
	for _, args := range [][]string{
		{"get", "ftp://x/y"},
		{"get", "--json", "http://127.0.0.1:1/"},
		{"get", "--accept", "sha-3", "http://127.0.0.1:1/"},
		{"get", "--want-repr", "sha-256=11", "http://127.0.0.1:1/"},
		{"get", "-T", "/nonexistent/file", "http://127.0.0.1:1/"},
		{"get", "-O", "http://127.0.0.1:1/"},
		{"get", "-O", "http://127.0.0.1:1/a/.."}, // not a file name
	} {
		if code, _, errOut := runHdig(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errOut)
		}
	}
	// Connection refused is a network failure.
	if code, _, errOut := runHdig(t, "get", "http://127.0.0.1:1/"); code != 4 {
		t.Errorf("refused: exit %d, want 4: %s", code, errOut)
	}
}

func TestGetUploadDigests(t *testing.T) {
	var got http.Header
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		body, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	f := filepath.Join(t.TempDir(), "up.json")
	os.WriteFile(f, []byte(helloBody), 0o644)
	code, _, errOut := runHdig(t, "get", "-T", f, srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if string(body) != helloBody || got.Get("Content-Digest") != helloSHA256 || got.Get("Repr-Digest") != helloSHA256 {
		t.Errorf("server saw body %q, Content-Digest %q, Repr-Digest %q", body, got.Get("Content-Digest"), got.Get("Repr-Digest"))
	}
	if got.Get("Want-Repr-Digest") != "sha-256=10, sha-512=5" {
		t.Errorf("Want-Repr-Digest = %q", got.Get("Want-Repr-Digest"))
	}
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q (%v), want %q", path, b, err, want)
	}
}

func assertNoFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s exists, want it absent", path)
	}
}

// A 206 to a request that asked for no range is a fragment, not FILE:
// exit 5, FILE untouched, nothing on stdout.
func TestGetUnaskedPartial(t *testing.T) {
	srv := origin{status: 206, header: map[string]string{"Content-Range": "bytes 0-3/19", "Content-Digest": "sha-256=:iNQmb9TmM40TuEX88olXnSCciXgjuSF9o+Fhk28DFYk=:"}, body: []byte(helloBody[:4])}.serve(t)
	dst := filepath.Join(t.TempDir(), "f")
	os.WriteFile(dst, []byte("precious"), 0o644)
	if code, _, errOut := runHdig(t, "get", "-o", dst, srv.URL); code != 5 {
		t.Errorf("-o: exit %d, want 5: %s", code, errOut)
	}
	assertFile(t, dst, "precious")
	assertNoFile(t, dst+".hdig-part")
	if code, out, errOut := runHdig(t, "get", srv.URL); code != 5 || out != "" {
		t.Errorf("stdout: exit %d (want 5), %d bytes out: %s", code, len(out), errOut)
	}
}

func TestGetUnwritableOutput(t *testing.T) {
	srv := origin{header: map[string]string{"Repr-Digest": helloSHA256}, body: []byte(helloBody)}.serve(t)
	dir := t.TempDir()
	for _, out := range []string{filepath.Join(dir, "no", "such", "dir", "f"), dir} {
		code, _, errOut := runHdig(t, "get", "--no-cache", "-o", out, srv.URL)
		if code != ExitUsage {
			t.Errorf("-o %s: exit %d, want 2: %s", out, code, errOut)
		}
		assertNoFile(t, out+".hdig-part")
	}
}

func TestGetCacheMax(t *testing.T) {
	srv := origin{header: map[string]string{"Repr-Digest": helloSHA256, "ETag": `"v1"`}, body: []byte(helloBody)}.serve(t)
	for _, tc := range []struct {
		max   string
		lines int
	}{{"10", 0}, {"1KiB", 1}} {
		dir := t.TempDir()
		if code, _, errOut := runHdig(t, "get", "--cache-dir", dir, "--cache-max", tc.max, srv.URL); code != 0 {
			t.Fatalf("--cache-max %s: exit %d: %s", tc.max, code, errOut)
		}
		_, out, _ := runHdig(t, "cache", "ls", "--cache-dir", dir)
		if got := strings.Count(out, "\n"); got != tc.lines {
			t.Errorf("--cache-max %s: %d cached versions, want %d:\n%s", tc.max, got, tc.lines, out)
		}
	}
	if code, _, _ := runHdig(t, "get", "--cache-max", "lots", srv.URL); code != ExitUsage {
		t.Errorf("--cache-max lots: exit %d, want 2", code)
	}
}
