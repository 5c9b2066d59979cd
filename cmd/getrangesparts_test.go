package cmd

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A multipart/byteranges answer to -r whose part carries a Content-MD5 or
// Content-Digest of other bytes (a body-part field, RFC 2046, RFC 1864)
// is an integrity failure (exit 1, FILE kept): the digest names the
// part's bytes, hdig can compute it (found by review: the parts' fields
// were never read, and the run exited 0 with the wrong bytes written).
func TestGetRangesPartDigestMismatch(t *testing.T) {
	wrongMD5 := md5.Sum([]byte("other"))
	wrong256 := sha256.Sum256([]byte("other"))
	right256 := sha256.Sum256([]byte("yz"))
	for name, field := range map[string]string{
		"content-md5":    "Content-MD5: " + base64.StdEncoding.EncodeToString(wrongMD5[:]),
		"content-digest": "Content-Digest: sha-256=:" + base64.StdEncoding.EncodeToString(wrong256[:]) + ":",
		"right":          "Content-Digest: sha-256=:" + base64.StdEncoding.EncodeToString(right256[:]) + ":",
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "multipart/byteranges; boundary=B")
				w.WriteHeader(http.StatusPartialContent)
				w.Write([]byte("--B\r\nContent-Range: bytes 0-2/36\r\n\r\n012\r\n--B\r\n" + field + "\r\nContent-Range: bytes 34-35/36\r\n\r\nyz\r\n--B--\r\n"))
			}))
			defer srv.Close()
			out := filepath.Join(t.TempDir(), "f")
			os.WriteFile(out, []byte("kept"), 0o644)
			code, v, errOut := getJSON(t, "-r", "0-2,34-35", "-o", out, srv.URL+"/f")
			t.Logf("exit %d, %+v: %s", code, v.Digests, errOut)
			got, _ := os.ReadFile(out)
			if name == "right" {
				if code != 0 || string(got) != "012yz" {
					t.Errorf("right part digest: exit %d, file %q", code, got)
				}
				return
			}
			named := false
			for _, d := range v.Digests {
				named = named || d.Result == "mismatch" && strings.Contains(d.Reason, "multipart part 2")
			}
			if code != 1 || v.Verdict != "mismatch" || !named {
				t.Errorf("wrong %s in a part: exit %d, verdict %s, want 1, mismatch naming the part", name, code, v.Verdict)
			}
			if string(got) != "kept" {
				t.Errorf("FILE replaced: %q", got)
			}
			if !strings.Contains(errOut, "✖ mismatch") || !strings.Contains(errOut, "multipart part 2") {
				t.Errorf("the verdict line does not say where the mismatch is: %s", errOut)
			}
		})
	}
}
