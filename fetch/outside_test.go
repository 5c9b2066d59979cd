package fetch

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

// outsideBody is the object of the foreign-field tests; its digests are
// computed with the algorithms the services name.
var outsideBody = []byte("The quick brown fox jumps over the lazy dog\n")

// b64Of is the base64 digest of b with alg, as GCS and S3 send it.
func b64Of(alg string, b []byte) string {
	a, _ := verify.Find(alg)
	h := a.New()
	h.Write(b)
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

// wrong is a digest of other bytes.
func wrong(alg string) string { return b64Of(alg, []byte("other")) }

var outsideTests = []struct {
	name    string
	header  []string // sent with outsideBody
	accept  string
	gzip    bool // the body is sent gzip-encoded (Content-Encoding)
	decode  bool // --compressed
	outcome verify.Outcome
	err     error
	want    string // "field alg result" of each check, joined by "; "
}{
	{"goog both", []string{"x-goog-hash: crc32c=" + b64Of("crc32c", outsideBody), "x-goog-hash: md5=" + b64Of("md5", outsideBody)}, "",
		false, false, verify.Unverified, nil, "x-goog-hash crc32c ignored; x-goog-hash md5 ignored"},
	{"goog accepted", []string{"x-goog-hash: crc32c=" + b64Of("crc32c", outsideBody) + ",md5=" + b64Of("md5", outsideBody)}, "md5,crc32c",
		false, false, verify.Verified, nil, "x-goog-hash crc32c match; x-goog-hash md5 match"},
	{"goog composite no md5", []string{"x-goog-hash: crc32c=" + b64Of("crc32c", outsideBody)}, "crc32c",
		false, false, verify.Verified, nil, "x-goog-hash crc32c match"},
	{"goog wrong md5 fails unaccepted", []string{"x-goog-hash: crc32c=" + b64Of("crc32c", outsideBody) + ", md5=" + wrong("md5")}, "",
		false, false, verify.Mismatched, ErrMismatch, "x-goog-hash crc32c ignored; x-goog-hash md5 mismatch"},
	{"goog transcoded", []string{"x-goog-hash: crc32c=" + wrong("crc32c"), "x-goog-stored-content-encoding: gzip"}, "crc32c",
		false, false, verify.Unverified, nil, "x-goog-hash crc32c ignored"},
	{"amz sha256", []string{"x-amz-checksum-sha256: " + b64Of("sha-256", outsideBody)}, "",
		false, false, verify.Verified, nil, "x-amz-checksum-sha256 sha-256 match"},
	{"amz sha256 wrong", []string{"x-amz-checksum-sha256: " + wrong("sha-256")}, "",
		false, false, verify.Mismatched, ErrMismatch, "x-amz-checksum-sha256 sha-256 mismatch"},
	{"amz sha1", []string{"x-amz-checksum-sha1: " + b64Of("sha", outsideBody)}, "sha",
		false, false, verify.Verified, nil, "x-amz-checksum-sha1 sha match"},
	{"amz crc32", []string{"x-amz-checksum-crc32: " + b64Of("crc32", outsideBody)}, "crc32",
		false, false, verify.Verified, nil, "x-amz-checksum-crc32 crc32 match"},
	{"amz crc32c", []string{"x-amz-checksum-crc32c: " + b64Of("crc32c", outsideBody)}, "",
		false, false, verify.Unverified, nil, "x-amz-checksum-crc32c crc32c ignored"},
	{"amz crc64nvme", []string{"x-amz-checksum-crc64nvme: " + b64Of("crc64nvme", outsideBody)}, "crc64nvme",
		false, false, verify.Verified, nil, "x-amz-checksum-crc64nvme crc64nvme match"},
	{"amz crc64nvme wrong", []string{"x-amz-checksum-crc64nvme: " + wrong("crc64nvme")}, "",
		false, false, verify.Mismatched, ErrMismatch, "x-amz-checksum-crc64nvme crc64nvme mismatch"},
	{"amz composite ignored", []string{"x-amz-checksum-crc32c: " + wrong("crc32c") + "-3", "x-amz-checksum-type: COMPOSITE"}, "crc32c",
		false, false, verify.Unverified, nil, "x-amz-checksum-crc32c crc32c ignored"},
	{"content-md5", []string{"Content-MD5: " + b64Of("md5", outsideBody)}, "md5",
		false, false, verify.Verified, nil, "Content-MD5 md5 match"},
	{"content-md5 wrong", []string{"Content-MD5: " + wrong("md5")}, "",
		false, false, verify.Mismatched, ErrMismatch, "Content-MD5 md5 mismatch"},
	{"unencoded identity", []string{"Unencoded-Digest: sha-256=:" + b64Of("sha-256", outsideBody) + ":"}, "",
		false, false, verify.Verified, nil, "Unencoded-Digest sha-256 match"},
	{"unencoded gzip not decoded", []string{"Unencoded-Digest: sha-256=:" + b64Of("sha-256", outsideBody) + ":"}, "",
		true, false, verify.Unverified, nil, "Unencoded-Digest sha-256 ignored"},
	{"unencoded gzip decoded", []string{"Unencoded-Digest: sha-256=:" + b64Of("sha-256", outsideBody) + ":"}, "",
		true, true, verify.Verified, nil, "Unencoded-Digest sha-256 match"},
	{"unencoded gzip decoded wrong", []string{"Unencoded-Digest: sha-256=:" + wrong("sha-256") + ":"}, "",
		true, true, verify.Mismatched, ErrMismatch, "Unencoded-Digest sha-256 mismatch"},
}

// outsideOrigin sends outsideBody (gzip-encoded when asked) with the
// header lines, and records the requests' x-amz-checksum-mode.
func outsideOrigin(t *testing.T, header []string, gz bool, mode *string) *httptest.Server {
	t.Helper()
	body := outsideBody
	if gz {
		body = gzipped(outsideBody)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mode != nil {
			*mode = r.Header.Get(verify.AmzChecksumMode)
		}
		for _, l := range header {
			k, v, _ := strings.Cut(l, ": ")
			w.Header().Add(k, v)
		}
		if gz {
			w.Header().Set("Content-Encoding", "gzip")
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func describeChecks(v verify.Verdict) string {
	var out []string
	for _, c := range v.Checks {
		out = append(out, c.Field+" "+c.Algorithm+" "+string(c.Result))
	}
	return strings.Join(out, "; ")
}

func TestOutsideFields(t *testing.T) {
	for _, tt := range outsideTests {
		t.Run(tt.name, func(t *testing.T) {
			srv := outsideOrigin(t, tt.header, tt.gzip, nil)
			p := verify.DefaultPolicy()
			if tt.accept != "" {
				p.Accept = append(p.Accept, strings.Split(tt.accept, ",")...)
			}
			c, _ := NewClient(Options{Timeout: 5 * time.Second})
			var out bytes.Buffer
			res, err := c.Do(context.Background(), &Request{URL: srv.URL, Policy: p, Compressed: tt.decode}, &HeldSink{Out: &out})
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if got := describeChecks(res.Verdict); got != tt.want || res.Outcome() != tt.outcome {
				t.Errorf("checks %q (%s), want %q (%s)", got, res.Outcome(), tt.want, tt.outcome)
			}
			if tt.err != nil && out.Len() != 0 {
				t.Errorf("a mismatch wrote %d bytes", out.Len())
			}
		})
	}
}

// A composite S3 checksum is reported with its reason.
func TestAmzCompositeReason(t *testing.T) {
	srv := outsideOrigin(t, []string{"x-amz-checksum-crc64nvme: " + wrong("crc64nvme") + "-12"}, false, nil)
	c, _ := NewClient(Options{Timeout: 5 * time.Second})
	res, err := c.Do(context.Background(), &Request{URL: srv.URL, Policy: verify.DefaultPolicy()}, &HeldSink{Out: &bytes.Buffer{}})
	if err != nil || len(res.Verdict.Checks) != 1 || !strings.Contains(res.Verdict.Checks[0].Reason, "composite of 12 multipart parts") {
		t.Fatalf("%v, %+v; want one ignored check naming the composite", err, res.Verdict.Checks)
	}
}

// x-amz-checksum-mode: ENABLED is sent when asked, and to Amazon's hosts.
func TestChecksumMode(t *testing.T) {
	var mode string
	srv := outsideOrigin(t, nil, false, &mode)
	c, _ := NewClient(Options{Timeout: 5 * time.Second})
	for _, asked := range []bool{false, true} {
		if _, err := c.Do(context.Background(), &Request{URL: srv.URL, Policy: verify.DefaultPolicy(), ChecksumMode: asked}, &HeldSink{Out: &bytes.Buffer{}}); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: "ENABLED"}[asked]; mode != want {
			t.Errorf("ChecksumMode %v sent %q, want %q", asked, mode, want)
		}
	}
	for u, want := range map[string]bool{"https://b.s3.us-east-1.amazonaws.com/k": true, "https://amazonaws.com.evil.example/k": false, "https://example.org/k": false} {
		if got := checksumModeFor(u, false); got != want {
			t.Errorf("checksumModeFor(%s) = %v, want %v", u, got, want)
		}
	}
}
