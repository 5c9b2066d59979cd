package cmd

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/servertest"
)

// runHdigIn runs hdig in-process with stdin.
func runHdigIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	ios, in, out, errOut := Test()
	in.WriteString(stdin)
	code := Run(context.Background(), ios, args)
	return code, out.String(), errOut.String()
}

// Issue 9 item 5: the Repr-Digest of an empty 201/204 to a PUT describes
// the stored resource (RFC 9530 §3.1, B.5): it is compared with what was
// sent, never with the empty body. Against the reference origin.
func TestGetUploadToReferenceOrigin(t *testing.T) {
	url, _ := recordedOrigin(t, map[string]string{"up/keep.txt": "x"}, server.WithWritable())
	f := filepath.Join(t.TempDir(), "up.json")
	os.WriteFile(f, []byte(servertest.Hello), 0o644)
	for _, want := range []int{201, 204} { // created, then replaced
		code, v, errOut := getJSON(t, "-T", f, "-o", filepath.Join(t.TempDir(), "resp"), url+"/up/hello.json")
		if code != 0 || v.Status != want || v.Verdict != "verified" {
			t.Fatalf("PUT: exit %d, %+v: %s", code, v, errOut)
		}
		if !hasCheck(v, "Repr-Digest", "sha-256", "match") {
			t.Errorf("PUT %d: Repr-Digest not matched against the content sent: %+v", want, v.Digests)
		}
	}
	code, stdout, errOut := runHdig(t, "get", "-T", f, url+"/up/hello.json")
	if code != 0 || stdout != "" || !strings.Contains(errOut, "✔ verified Repr-Digest sha-256") || !strings.Contains(errOut, "19 B sent") {
		t.Errorf("PUT to stdout: exit %d, stdout %q: %s", code, stdout, errOut)
	}
	// POST to a folder: the 201's Repr-Digest describes the new resource
	// its Content-Location names, which hdig did not see: ignored, not a
	// mismatch against the empty body.
	code, stdout, errOut = runHdig(t, "get", "--data-binary", "@"+f, "-H", "Content-Type: application/json", url+"/up/")
	if code != 0 || strings.Contains(errOut, "mismatch") || !strings.Contains(errOut, "Content-Location") {
		t.Errorf("POST: exit %d, stdout %q: %s", code, stdout, errOut)
	}
}

func hasCheck(v jsonVerdict, field, alg, result string) bool {
	for _, d := range v.Digests {
		if d.Field == field && d.Algorithm == alg && d.Result == result {
			return true
		}
	}
	return false
}

// The same rules against httptest origins, RFC 9530 Appendix B.5, B.7, B.8.
func TestGetUploadResponses(t *testing.T) {
	const other = "sha-256=:iNQmb9TmM40TuEX88olXnSCciXgjuSF9o+Fhk28DFYk=:"
	tests := []struct {
		name     string
		args     []string
		origin   origin
		wantCode int
		wantErr  string
	}{
		{name: "201 empty, digest of the content sent", origin: origin{status: 201, header: map[string]string{"Repr-Digest": helloSHA256}},
			wantCode: 0, wantErr: "✔ verified Repr-Digest sha-256"},
		{name: "204, Content-Location is the target", origin: origin{status: 204, header: map[string]string{"Repr-Digest": helloSHA256, "Content-Location": "/items/123"}},
			wantCode: 0, wantErr: "✔ verified Repr-Digest sha-256"},
		{name: "201 empty, another digest is a mismatch", origin: origin{status: 201, header: map[string]string{"Repr-Digest": other}},
			wantCode: 1, wantErr: "✖ mismatch Repr-Digest sha-256"},
		{name: "201 empty, Content-Digest of empty content", origin: origin{status: 201, header: map[string]string{"Repr-Digest": helloSHA256, "Content-Digest": emptySHA256}},
			wantCode: 0, wantErr: "✔ verified Repr-Digest sha-256 and Content-Digest sha-256"},
		{name: "201 empty, Content-Digest is still over the content", origin: origin{status: 201, header: map[string]string{"Repr-Digest": helloSHA256, "Content-Digest": helloSHA256}},
			wantCode: 1, wantErr: "✖ mismatch Content-Digest sha-256"},
		{name: "B.5 stored brotli-encoded", origin: origin{status: 204, header: map[string]string{"Repr-Digest": brDigest256, "Content-Encoding": "br", "Content-Type": "application/json"}},
			wantCode: 0, wantErr: "Content-Encoding br"},
		{name: "Content-Location elsewhere", origin: origin{status: 201, header: map[string]string{"Repr-Digest": other, "Content-Location": "/items/124"}},
			wantCode: 0, wantErr: "/items/124"},
		{name: "B.7 POST, representation of Content-Location enclosed", args: []string{"-X", "POST"},
			origin:   origin{status: 201, header: map[string]string{"Repr-Digest": helloSHA256, "Content-Location": "/items/124"}, body: []byte(helloBody)},
			wantCode: 0, wantErr: "✔ verified Repr-Digest sha-256"},
		{name: "B.8 POST, status enclosed", args: []string{"-X", "POST"},
			origin:   origin{status: 201, header: map[string]string{"Repr-Digest": helloSHA256, "Location": "/items/124"}, body: []byte(helloBody)},
			wantCode: 0, wantErr: "✔ verified Repr-Digest sha-256"},
		{name: "B.8 status body with the digest of the upload", args: []string{"-X", "POST"},
			origin:   origin{status: 201, header: map[string]string{"Repr-Digest": helloSHA256}, body: []byte(`{"status":"created"}`)},
			wantCode: 1, wantErr: "✖ mismatch Repr-Digest sha-256"},
		{name: "POST empty answer: the target is not what was sent", args: []string{"-X", "POST"},
			origin:   origin{status: 201, header: map[string]string{"Repr-Digest": other}},
			wantCode: 0, wantErr: "Repr-Digest not checked"},
	}
	f := filepath.Join(t.TempDir(), "up.json")
	os.WriteFile(f, []byte(helloBody), 0o644)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.origin.serve(t)
			args := append([]string{"get", "-v", "-T", f}, tt.args...)
			code, _, errOut := runHdig(t, append(args, srv.URL+"/items/123")...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tt.wantCode, tt.wantErr, errOut)
			}
		})
	}
}

// -T - and --data-binary @- read stdin, as curl does; the digests are
// over what was read.
func TestGetBodyFromStdin(t *testing.T) {
	var got []string
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.Header.Get("Repr-Digest")+" "+r.Header.Get("Content-Digest"))
		bodies = append(bodies, string(b))
		w.Header().Set("Repr-Digest", helloSHA256)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	// -d @- drops the line breaks (TestDataFileDropsLineBreaks).
	for _, args := range [][]string{{"-T", "-"}, {"--data-binary", "@-"}} {
		got, bodies = nil, nil
		code, _, errOut := runHdigIn(t, helloBody, append(append([]string{"get"}, args...), srv.URL+"/x")...)
		if code != 0 || len(bodies) != 1 || bodies[0] != helloBody {
			t.Fatalf("%v: exit %d, bodies %q: %s", args, code, bodies, errOut)
		}
		if want := helloSHA256 + " " + helloSHA256; !strings.HasSuffix(got[0], want) {
			t.Errorf("%v: server saw %q, want digests %q", args, got[0], want)
		}
	}
	// A large stdin is spooled, not held in memory, and sent whole.
	big := strings.Repeat("0123456789abcdef", 1<<16+1) // 1 MiB and 16 B
	bodies = nil
	if code, _, errOut := runHdigIn(t, big, "get", "-T", "-", srv.URL+"/x"); code != 1 || len(bodies) != 1 || bodies[0] != big {
		t.Errorf("1 MiB from stdin: exit %d (want 1: the origin's digest is of another body), %d bodies: %s", code, len(bodies), errOut)
	}
}

// Without a body a PUT sent empty content; a DELETE's empty answer
// describes a resource hdig has not seen. The algorithm the origin picks
// from Want-Repr-Digest is computed over what was sent.
func TestGetUploadWithoutBody(t *testing.T) {
	srv := origin{status: 204, header: map[string]string{"Repr-Digest": emptySHA256}}.serve(t)
	if code, _, errOut := runHdig(t, "get", "-X", "PUT", srv.URL); code != 0 || !strings.Contains(errOut, "✔ verified Repr-Digest sha-256") {
		t.Errorf("PUT without body: exit %d: %s", code, errOut)
	}
	srv = origin{status: 204, header: map[string]string{"Repr-Digest": helloSHA256}}.serve(t)
	if code, _, errOut := runHdig(t, "get", "-X", "DELETE", srv.URL); code != 0 || !strings.Contains(errOut, "Repr-Digest not checked") {
		t.Errorf("DELETE: exit %d: %s", code, errOut)
	}
	url, _ := recordedOrigin(t, map[string]string{"keep.txt": "x"}, server.WithWritable())
	f := filepath.Join(t.TempDir(), "up.json")
	os.WriteFile(f, []byte(servertest.Hello), 0o644)
	code, _, errOut := runHdig(t, "get", "--want-repr", "sha-512=10", "-T", f, url+"/h.json")
	if code != 0 || !strings.Contains(errOut, "✔ verified Repr-Digest sha-512") {
		t.Errorf("PUT asking for sha-512: exit %d: %s", code, errOut)
	}
}
