package cmd

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 9: a digest hdig computed that does not match is always a failure
// (exit 1, nothing written), whatever else the field holds and whatever
// the policy accepts as proof.
func TestGetMismatchNeverHidden(t *testing.T) {
	const (
		md5Hello  = "md5=:UFIauregE76D7gDe0/n0JA==:"
		md5Bare   = "md5=:UFIauregE76D7gDe0/n0JA:"
		md5Wrong  = "md5=:AAAAAAAAAAAAAAAAAAAAAA==:"
		shaWrong  = emptySHA256
		wantMis   = "✖ mismatch"
		unverfied = "⚠ unverified"
	)
	tests := []struct {
		name     string
		origin   origin
		args     []string
		wantCode int
		wantErr  string
	}{
		{name: "unpadded md5 beside a padded wrong sha-256", origin: origin{header: map[string]string{"Repr-Digest": md5Bare + ", " + shaWrong}},
			wantCode: 1, wantErr: wantMis + " Repr-Digest sha-256"},
		{name: "wrong sha-256 beside an unknown member", origin: origin{header: map[string]string{"Repr-Digest": shaWrong + ", foo=?1"}},
			wantCode: 1, wantErr: wantMis + " Repr-Digest sha-256"},
		{name: "deprecated md5 mismatch alone", origin: origin{header: map[string]string{"Repr-Digest": md5Wrong}},
			wantCode: 1, wantErr: wantMis + " Repr-Digest md5"},
		{name: "deprecated md5 mismatch beside a sha-256 match", origin: origin{header: map[string]string{"Repr-Digest": md5Wrong + ", " + helloSHA256}},
			wantCode: 1, wantErr: wantMis + " Repr-Digest md5"},
		{name: "deprecated md5 mismatch in Content-Digest", origin: origin{header: map[string]string{"Content-Digest": md5Wrong}},
			wantCode: 1, wantErr: wantMis + " Content-Digest md5"},
		{name: "deprecated md5 mismatch in a trailer", origin: origin{trailer: map[string]string{"Repr-Digest": md5Wrong}},
			wantCode: 1, wantErr: wantMis + " Repr-Digest md5"},
		{name: "unixsum mismatch in the legacy Digest", origin: origin{header: map[string]string{"Digest": "UNIXsum=1"}},
			wantCode: 1, wantErr: wantMis + " Digest unixsum"},
		{name: "wrong sha-256 in the legacy Digest beside a matching Repr-Digest", origin: origin{header: map[string]string{"Repr-Digest": helloSHA256, "Digest": "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}},
			wantCode: 1, wantErr: wantMis + " Digest sha-256"},
		{name: "wrong Content-MD5 in the second of two lines", origin: origin{headerLines: map[string][]string{"Content-MD5": {"UFIauregE76D7gDe0/n0JA==", "AAAAAAAAAAAAAAAAAAAAAA=="}}},
			wantCode: 1, wantErr: wantMis + " Content-MD5 md5"},
		{name: "wrong x-amz-checksum-sha256 in the second of two lines", origin: origin{headerLines: map[string][]string{"X-Amz-Checksum-Sha256": {"RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}}},
			wantCode: 1, wantErr: wantMis + " x-amz-checksum-sha256 sha-256"},
		{name: "Content-MD5 of the wrong length", origin: origin{header: map[string]string{"Content-MD5": "AAAA"}},
			wantCode: 1, wantErr: wantMis + " Content-MD5 md5"},
		{name: "x-goog-hash md5 of the wrong length", origin: origin{header: map[string]string{"X-Goog-Hash": "md5=AAAA"}},
			wantCode: 1, wantErr: wantMis + " x-goog-hash md5"},
		{name: "deprecated md5 match proves nothing", origin: origin{header: map[string]string{"Repr-Digest": md5Hello}},
			wantCode: 0, wantErr: unverfied + ": no digest the policy accepts could be checked"},
		{name: "wrong sha-256 in a field with a syntax error", origin: origin{header: map[string]string{"Repr-Digest": shaWrong + ", x=@"}},
			wantCode: 1, wantErr: wantMis + " Repr-Digest sha-256"},
		{name: "right sha-256 in a field with a syntax error proves nothing", origin: origin{header: map[string]string{"Repr-Digest": helloSHA256 + ", x=@"}},
			wantCode: 0, wantErr: unverfied + ": no digest the policy accepts could be checked"},
		{name: "wrong sha-256 in one of two field lines, the other garbage", origin: origin{headerLines: map[string][]string{"Repr-Digest": {shaWrong, "%%%"}}},
			wantCode: 1, wantErr: wantMis + " Repr-Digest sha-256"},
		{name: "deprecated md5 mismatch about the stored resource after a PUT", origin: origin{status: 204, header: map[string]string{"Repr-Digest": md5Wrong}},
			args: []string{"-X", "PUT", "--data-binary", "hello"}, wantCode: 1, wantErr: wantMis + " Repr-Digest md5"},
		{name: "sha-384 mismatch in a trailer", origin: origin{trailer: map[string]string{"Repr-Digest": "sha-384=:" + strings.Repeat("A", 64) + ":"}},
			wantCode: 1, wantErr: wantMis + " Repr-Digest sha-384"},
		{name: "wrong md5 in a trailing x-goog-hash", origin: origin{trailer: map[string]string{"X-Goog-Hash": "md5=AAAAAAAAAAAAAAAAAAAAAA=="}},
			wantCode: 1, wantErr: wantMis},
		{name: "header sha-256 and trailer disagree on an unknown algorithm", origin: origin{header: map[string]string{"Repr-Digest": helloSHA256 + ", foo=:AQ==:"}, trailer: map[string]string{"Repr-Digest": "foo=:Ag==:"}},
			wantCode: 1, wantErr: "Repr-Digest foo differs between header and trailer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.origin
			o.body = []byte(helloBody)
			srv := o.serve(t)
			out := filepath.Join(t.TempDir(), "out.json")
			code, _, errOut := runHdig(t, append(append([]string{"get", "-o", out}, tt.args...), srv.URL+"/items/123")...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, errOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.wantErr)
			}
			_, err := os.Stat(out)
			if written := err == nil; written != (tt.wantCode == 0) {
				t.Errorf("%s written: %v, want %v", out, written, tt.wantCode == 0)
			}
		})
	}
}

// x-goog-hash describes the object as GCS stores it: an object stored as
// is (x-goog-stored-content-encoding: identity) that a proxy compressed on
// the way (--compressed, Content-Encoding: gzip) is not what it hashes, so
// its right md5 of the stored bytes is not a mismatch with the gzip bytes.
func TestGetGoogHashProxyCompressed(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(helloBody))
	w.Close()
	srv := origin{body: gz.Bytes(), header: map[string]string{"Content-Encoding": "gzip",
		"X-Goog-Hash": "md5=UFIauregE76D7gDe0/n0JA==", "X-Goog-Stored-Content-Encoding": "identity"}}.serve(t)
	out := filepath.Join(t.TempDir(), "out")
	code, _, errOut := runHdig(t, "get", "--compressed", "-o", out, srv.URL+"/items/123")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, errOut)
	}
	if got, _ := os.ReadFile(out); string(got) != helloBody {
		t.Errorf("wrote %q, want %q", got, helloBody)
	}
}

// A HEAD or a 304 carries no content: a Content-Digest of empty content
// matches vacuously and says nothing of the representation. The verdict
// word (-w %{verdict}, --json) and --require-digest's exit 3 come from one
// rule, so neither calls it verified.
func TestGetEmptyContentDigestNotVerified(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Digest", emptySHA256)
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") != "" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Length", "5")
		if r.Method != http.MethodHead {
			w.Write([]byte("hello"))
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"HEAD", []string{"-I"}},
		{"304", []string{"-H", `If-None-Match: "v1"`, "-o", filepath.Join(t.TempDir(), "f")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"get", "-s", "-w", "%{verdict}\n"}, tc.args...)
			code, out, _ := runHdig(t, append(args, srv.URL+"/f")...)
			if code != 0 || !strings.Contains(out, "unverified") {
				t.Errorf("-w %%{verdict}: exit %d, stdout %q; want exit 0 and unverified", code, out)
			}
			code, out, _ = runHdig(t, append(args, "--require-digest", srv.URL+"/f")...)
			if code != 3 || !strings.Contains(out, "unverified") {
				t.Errorf("--require-digest: exit %d, stdout %q; want exit 3 and unverified", code, out)
			}
			code, out, _ = runHdig(t, append([]string{"get", "--json"}, append(tc.args, srv.URL+"/f")...)...)
			if code != 0 || !strings.Contains(out, `"verdict":"unverified"`) {
				t.Errorf("--json: exit %d, stdout %q; want exit 0 and verdict unverified", code, out)
			}
		})
	}
}
