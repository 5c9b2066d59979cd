package delta

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// text returns a deterministic text of n lines; version v edits a few.
func text(n, v int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		x := i
		if v > 1 && i%101 == 7 {
			x = i*7 + v
		}
		fmt.Fprintf(&b, "line %d of the file, value %d\n", i, x)
	}
	return b.Bytes()
}

type origin struct {
	t    *testing.T
	h    *Handler
	dir  string
	url  string
	file string
}

func newOrigin(t *testing.T, history int, opts ...server.Option) *origin {
	t.Helper()
	dir := t.TempDir()
	h, err := New(filepath.Join(t.TempDir(), "state"), history, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(dir, append([]server.Option{server.WithDelta(h)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close(); h.Close() })
	return &origin{t: t, h: h, dir: dir, url: ts.URL + "/a.txt", file: filepath.Join(dir, "a.txt")}
}

func (o *origin) put(b []byte) {
	o.t.Helper()
	if err := os.WriteFile(o.file, b, 0o644); err != nil {
		o.t.Fatal(err)
	}
}

// putETag puts b as the file's new version and returns its ETag.
func (o *origin) putETag(b []byte) string {
	o.put(b)
	resp, _ := o.get(nil)
	return resp.Header.Get("ETag")
}

func (o *origin) get(hdr map[string]string) (*http.Response, []byte) {
	o.t.Helper()
	req, _ := http.NewRequest("GET", o.url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		o.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		o.t.Fatal(err)
	}
	return resp, b
}

func reprSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return verify.FormatDigests([]verify.Digest{{Algorithm: "sha-256", Value: sum[:]}})
}

func TestDelta226(t *testing.T) {
	v1, v2 := text(3000, 1), text(3000, 2)
	tests := []struct {
		aim    string
		wantIM string
		decode func(base, delta []byte) ([]byte, error)
	}{
		{"vcdiff", "vcdiff", func(base, d []byte) ([]byte, error) {
			var out bytes.Buffer
			err := patch.DecodeVCDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(d), &out)
			return out.Bytes(), err
		}},
		{"vcdiff;q=0.2, gdiff", "gdiff", func(base, d []byte) ([]byte, error) {
			var out bytes.Buffer
			err := patch.DecodeGDIFF(bytes.NewReader(base), int64(len(base)), bytes.NewReader(d), &out)
			return out.Bytes(), err
		}},
		{"diffe, gzip;q=0.5", "diffe, gzip", func(base, d []byte) ([]byte, error) {
			zr, err := gzip.NewReader(bytes.NewReader(d))
			if err != nil {
				return nil, err
			}
			var out bytes.Buffer
			err = patch.ApplyDiffE(bytes.NewReader(base), int64(len(base)), zr, &out)
			return out.Bytes(), err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.aim, func(t *testing.T) {
			o := newOrigin(t, DefaultHistory)
			o.put(v1)
			r1, _ := o.get(nil)
			e1 := r1.Header.Get("ETag")
			o.put(v2)
			resp, body := o.get(map[string]string{"A-IM": tt.aim, "If-None-Match": e1, "Want-Content-Digest": "sha-256=1"})
			if resp.StatusCode != http.StatusIMUsed {
				t.Fatalf("status %d, want 226", resp.StatusCode)
			}
			h := resp.Header
			if h.Get("IM") != tt.wantIM || h.Get("Delta-Base") != e1 || h.Get("Cache-Control") != "no-store, im" {
				t.Errorf("IM %q Delta-Base %q Cache-Control %q", h.Get("IM"), h.Get("Delta-Base"), h.Get("Cache-Control"))
			}
			if h.Get("Repr-Digest") != reprSHA256(v2) {
				t.Errorf("Repr-Digest %q, want %q (of the current instance)", h.Get("Repr-Digest"), reprSHA256(v2))
			}
			if h.Get("Content-Digest") != reprSHA256(body) {
				t.Errorf("Content-Digest %q, want the delta's %q", h.Get("Content-Digest"), reprSHA256(body))
			}
			if len(body) >= len(v2)/10 {
				t.Errorf("delta is %d bytes for a %d-byte file with a few edits", len(body), len(v2))
			}
			got, err := tt.decode(v1, body)
			if err != nil || !bytes.Equal(got, v2) {
				t.Fatalf("rebuilt %d bytes (%v), want v2 (%d bytes)", len(got), err, len(v2))
			}
			// The same request again is answered from the delta cache.
			resp2, body2 := o.get(map[string]string{"A-IM": tt.aim, "If-None-Match": e1})
			if resp2.StatusCode != http.StatusIMUsed || !bytes.Equal(body, body2) {
				t.Errorf("second request: status %d, same body %v", resp2.StatusCode, bytes.Equal(body, body2))
			}
		})
	}
}

func TestDeltaFallbacks(t *testing.T) {
	o := newOrigin(t, 1)
	v1 := text(2000, 1)
	o.put(v1)
	r1, _ := o.get(nil)
	e1 := r1.Header.Get("ETag")

	// The current version: 304 as usual.
	if resp, _ := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("current base: status %d, want 304", resp.StatusCode)
	}
	// An unknown base: the full instance.
	if resp, b := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": `"sha256-unknown"`}); resp.StatusCode != 200 || !bytes.Equal(b, v1) {
		t.Errorf("unknown base: status %d", resp.StatusCode)
	}
	// Unknown base and identity refused: 406.
	if resp, _ := o.get(map[string]string{"A-IM": "vcdiff, identity;q=0", "If-None-Match": `"sha256-unknown"`}); resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("identity;q=0: status %d, want 406", resp.StatusCode)
	}
	// No A-IM: plain 200.
	o.put(text(2000, 2))
	if resp, _ := o.get(map[string]string{"If-None-Match": e1}); resp.StatusCode != 200 {
		t.Errorf("no A-IM: status %d, want 200", resp.StatusCode)
	}
	// A rewrite that shares nothing: the delta is no smaller, so 200.
	o.put(bytes.Repeat([]byte("z"), 50))
	r3, _ := o.get(nil)
	o.put(bytes.Repeat([]byte("completely different "), 3))
	if resp, _ := o.get(map[string]string{"A-IM": "diffe", "If-None-Match": r3.Header.Get("ETag")}); resp.StatusCode != 200 {
		t.Errorf("big change: status %d, want 200", resp.StatusCode)
	}
	// History 1: e1 has been forgotten.
	if resp, _ := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": e1}); resp.StatusCode != 200 {
		t.Errorf("forgotten base: status %d, want 200", resp.StatusCode)
	}
}

func TestDeltaBinaryRefusesDiffE(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	v1 := bytes.Repeat([]byte{0, 1, 2, 3, 4, 5, 6, 7}, 4096)
	o.put(v1)
	r1, _ := o.get(nil)
	v2 := append([]byte{}, v1...)
	v2[1000] = 9
	o.put(v2)
	resp, _ := o.get(map[string]string{"A-IM": "diffe, vcdiff;q=0.5", "If-None-Match": r1.Header.Get("ETag")})
	if resp.StatusCode != http.StatusIMUsed || resp.Header.Get("IM") != "vcdiff" {
		t.Errorf("binary: status %d IM %q, want 226 vcdiff (diffe refuses binary)", resp.StatusCode, resp.Header.Get("IM"))
	}
}

// The origin picks among the acceptable delta codings of the A-IM that
// patch.ParseAIM reads, and refuses identity only for identity;q=0.
func TestAcceptedCodings(t *testing.T) {
	aim := patch.ParseAIM([]string{"vcdiff;q=0.5, gdiff;q=0.8", "diffe;q=0, identity;q=0, gzip"})
	if !refusesIdentity(aim) {
		t.Error("refusesIdentity = false for identity;q=0")
	}
	acc := accepted(aim, deltaCodings)
	if len(acc) != 2 || acc[0].Name != "gdiff" || acc[1].Name != "vcdiff" {
		t.Errorf("accepted = %v, want gdiff then vcdiff (diffe;q=0 is not acceptable)", acc)
	}
	if refusesIdentity(patch.ParseAIM([]string{"vcdiff, identity;q=0.001"})) {
		t.Error("refusesIdentity = true for identity;q=0.001")
	}
}

// A compression follows the delta coding it is listed after, and only an
// acceptable member names the coding: "vcdiff;q=0, zstd, vcdiff" lists
// zstd before the vcdiff it accepts, so zstd does not follow it (the
// position was taken from the refused vcdiff;q=0); a compression refused
// (q=0) or listed before the coding is never chosen, a repeat of the
// coding changes nothing.
func TestAcceptedAfter(t *testing.T) {
	tests := []struct{ aim, want string }{
		{"vcdiff, zstd, br;q=0.5", "zstd br"},
		{"vcdiff;q=0, zstd, vcdiff", ""},
		{"vcdiff;q=0, zstd, vcdiff, br", "br"},
		{"zstd, vcdiff", ""},
		{"vcdiff, zstd;q=0", ""},
		{"vcdiff, zstd, vcdiff", "zstd"},
		{"gdiff, zstd", ""},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range acceptedAfter(patch.ParseAIM([]string{tt.aim}), "vcdiff", deltaEncodings) {
			got = append(got, m.Name)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("acceptedAfter(%q, vcdiff) = %q, want %q", tt.aim, got, tt.want)
		}
	}
}

// An If-None-Match list longer than httpfield.MaxETags is not searched
// for a base: the request is answered without a delta.
func TestDeltaLongETagList(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	o.put(text(500, 1))
	r1, _ := o.get(nil)
	o.put(text(500, 2))
	list := strings.Repeat(`"other", `, httpfield.MaxETags) + r1.Header.Get("ETag")
	if resp, _ := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": list}); resp.StatusCode != http.StatusOK {
		t.Errorf("%d tags: status %d, want 200", httpfield.MaxETags+1, resp.StatusCode)
	}
	list = strings.Repeat(`"other", `, httpfield.MaxETags-1) + r1.Header.Get("ETag")
	if resp, _ := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": list}); resp.StatusCode != http.StatusIMUsed {
		t.Errorf("%d tags: status %d, want 226", httpfield.MaxETags, resp.StatusCode)
	}
}
