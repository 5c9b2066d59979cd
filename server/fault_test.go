package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

func TestWithWrongDigest(t *testing.T) {
	_, ts := start(t, fixture(t), WithWrongDigest())
	r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=1")
	if string(r.body) != hello {
		t.Errorf("body = %q", r.body)
	}
	for _, k := range []string{"Repr-Digest", "Content-Digest"} {
		if v := r.Header.Get(k); v == "" || v == helloRepr {
			t.Errorf("%s = %q, want a wrong value", k, v)
		}
	}
	_, ts = start(t, fixture(t), WithWrongDigest("Content-Digest"))
	r = raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=1")
	wantHeader(t, r, "Repr-Digest", helloRepr)
	if r.Header.Get("Content-Digest") == helloRepr {
		t.Error("Content-Digest is right")
	}
	if _, err := New(t.TempDir(), WithWrongDigest("Digest")); err == nil {
		t.Error("WithWrongDigest accepted an unknown field")
	}
}

func TestWithFlippedByte(t *testing.T) {
	_, ts := start(t, fixture(t), WithFlippedByte(12))
	r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=1")
	want := []byte(hello)
	want[12] ^= 0xff
	if !bytes.Equal(r.body, want) {
		t.Errorf("body = %q, want %q", r.body, want)
	}
	wantHeader(t, r, "Repr-Digest", helloRepr)
	wantHeader(t, r, "Content-Digest", helloRepr)
	p := raw(t, ts, "GET", "/hello.json", "Range: bytes=10-18")
	if !bytes.Equal(p.body, want[10:]) {
		t.Errorf("range body = %q, want %q", p.body, want[10:])
	}
	p = raw(t, ts, "GET", "/hello.json", "Range: bytes=0-5")
	if string(p.body) != hello[:6] {
		t.Errorf("range without the offset changed: %q", p.body)
	}
}

func TestWithTruncatedBody(t *testing.T) {
	_, ts := start(t, fixture(t), WithTruncatedBody(1000))
	r := raw(t, ts, "GET", "/data.bin")
	if r.ContentLength != int64(len(binData)) {
		t.Errorf("Content-Length = %d", r.ContentLength)
	}
	if len(r.body) != 1000 || !errors.Is(r.bodyErr, io.ErrUnexpectedEOF) {
		t.Errorf("read %d bytes, err %v; want 1000, unexpected EOF", len(r.body), r.bodyErr)
	}
	if !bytes.Equal(r.body, binData[:1000]) {
		t.Error("the bytes sent are wrong")
	}
	wantHeader(t, r, "Repr-Digest", sfSHA256(binData))
}

func TestWithIgnoreRange(t *testing.T) {
	_, ts := start(t, fixture(t), WithIgnoreRange())
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=0-3")
	wantStatus(t, r, http.StatusOK)
	if string(r.body) != hello {
		t.Errorf("body = %q", r.body)
	}
}

func TestWithLyingContentRange(t *testing.T) {
	_, ts := start(t, fixture(t), WithLyingContentRange(3))
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=2-5", "Want-Content-Digest: sha-256=1")
	wantStatus(t, r, http.StatusPartialContent)
	wantHeader(t, r, "Content-Range", "bytes 5-8/19")
	if string(r.body) != hello[2:6] {
		t.Errorf("body = %q, want %q", r.body, hello[2:6])
	}
	wantHeader(t, r, "Content-Digest", sfSHA256([]byte(hello[2:6])))
	r = raw(t, ts, "GET", "/hello.json", "Range: bytes=15-18")
	wantHeader(t, r, "Content-Range", "bytes 12-15/19")
}

func TestWithChangingETag(t *testing.T) {
	etags := func(opt Option, n int) []string {
		_, ts := start(t, fixture(t), opt)
		var out []string
		for range n {
			out = append(out, raw(t, ts, "HEAD", "/hello.json").Header.Get("ETag"))
		}
		return out
	}
	e := etags(WithChangingETag(1), 3)
	if e[0] == e[1] || e[1] == e[2] || e[0] == e[2] {
		t.Errorf("every request: %q", e)
	}
	e = etags(WithChangingETag(2), 3)
	if e[0] != e[1] || e[1] == e[2] {
		t.Errorf("after 2 requests: %q", e)
	}
	// If-Range against the earlier tag now fails: 200 with everything.
	_, ts := start(t, fixture(t), WithChangingETag(1))
	first := raw(t, ts, "HEAD", "/hello.json").Header.Get("ETag")
	r := raw(t, ts, "GET", "/hello.json", "Range: bytes=0-3", "If-Range: "+first)
	wantStatus(t, r, http.StatusOK)
}

// The rate limit and the first-byte delay are checked by the waits they
// ask for, counted through the config's sleep, never by the wall clock.
func TestWithRateLimitAndDelay(t *testing.T) {
	var mu sync.Mutex
	var waits []time.Duration
	count := func(c *config) error {
		c.sleep = func(_ context.Context, d time.Duration) bool {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, d)
			return true
		}
		return nil
	}
	_, ts := start(t, fixture(t), WithRateLimit(40000), WithFirstByteDelay(100*time.Millisecond), count)
	r := raw(t, ts, "GET", "/data.bin", "Range: bytes=0-19999")
	if !bytes.Equal(r.body, binData[:20000]) {
		t.Error("body differs")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) == 0 || waits[0] != 100*time.Millisecond {
		t.Fatalf("waits %v: want the 100 ms first-byte delay first", waits)
	}
	// 20000 bytes at 40000 B/s in writes of 2000 (rate/20): the body is
	// held back before most writes, and never for longer than the whole
	// body's time at the rate (500 ms).
	body := waits[1:]
	whole := time.Duration(20000) * time.Second / 40000 // the body's time at the rate
	if len(body) < 8 {
		t.Errorf("%d waits for 10 writes at the rate: %v", len(body), body)
	}
	for _, d := range body {
		if d <= 0 || d > whole {
			t.Errorf("wait %v outside (0, %v]: %v", d, whole, body)
		}
	}
}

func TestWithoutDigests(t *testing.T) {
	_, ts := start(t, fixture(t), WithoutDigests())
	r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=1", "Want-Repr-Digest: sha-256=1")
	wantHeader(t, r, "Repr-Digest", "")
	wantHeader(t, r, "Content-Digest", "")
	if r.Header.Get("ETag") == "" {
		t.Error("no ETag")
	}
}

func TestWithTrailerDigests(t *testing.T) {
	_, ts := start(t, fixture(t), WithTrailerDigests())
	r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=1")
	wantHeader(t, r, "Repr-Digest", "")
	wantHeader(t, r, "Content-Digest", "")
	if r.Trailer.Get("Repr-Digest") != helloRepr || r.Trailer.Get("Content-Digest") != helloRepr {
		t.Errorf("trailer = %v", r.Trailer)
	}
	if !bytes.Contains(r.raw, []byte("Transfer-Encoding: chunked")) || string(r.body) != hello {
		t.Errorf("response:\n%s", r.raw)
	}
	h := raw(t, ts, "HEAD", "/hello.json")
	wantHeader(t, h, "Repr-Digest", helloRepr)
}

func TestWithDecodedReprDigest(t *testing.T) {
	_, ts := start(t, fixture(t), WithDecodedReprDigest())
	r := raw(t, ts, "GET", "/text.txt", "Accept-Encoding: gzip", "Want-Content-Digest: sha-256=1")
	wantHeader(t, r, "Content-Encoding", "gzip")
	wantHeader(t, r, "Repr-Digest", sfSHA256([]byte(text)))
	wantHeader(t, r, "Content-Digest", sfSHA256(r.body))
}

func TestWithLegacyDigest(t *testing.T) {
	_, ts := start(t, fixture(t), WithLegacyDigest())
	r := raw(t, ts, "GET", "/hello.json", "Want-Content-Digest: sha-256=1")
	wantHeader(t, r, "Repr-Digest", "")
	wantHeader(t, r, "Content-Digest", "")
	wantHeader(t, r, "Digest", "SHA-256=RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=")
	tests := map[string]string{
		"MD5":                      "MD5=UFIauregE76D7gDe0/n0JA==",
		"unixsum":                  "UNIXsum=35980",
		"UNIXcksum;q=1, md5;q=0.5": "UNIXcksum=2891841127",
		"adler32":                  "ADLER32=3fba0621",
		"crc32c, sha;q=0":          "CRC32c=19618cf0",
		// Malformed qvalues drop the member, as in A-IM (httpfield.QValue).
		"md5;q=bad, adler32;q=0.5": "ADLER32=3fba0621",
		"md5;q=2, unixsum;q=0.9":   "UNIXsum=35980",
		"md5;Q=0.1, adler32;q=0.2": "ADLER32=3fba0621",
	}
	for want, field := range tests {
		r := raw(t, ts, "GET", "/hello.json", "Want-Digest: "+want)
		if got := r.Header.Get("Digest"); got != field {
			t.Errorf("Want-Digest %s: Digest = %q, want %q", want, got, field)
		}
	}
}

// A delta step installed with WithDelta sees the selected representation.
type fakeDelta struct{ seen *Representation }

func (f *fakeDelta) ServeDelta(w http.ResponseWriter, r *http.Request, cur *Representation, _ int64) (bool, error) {
	f.seen = cur
	if r.Header.Get("A-IM") == "" {
		return false, nil
	}
	w.Header().Set("IM", "vcdiff")
	w.WriteHeader(226)
	return true, nil
}

func TestWithDelta(t *testing.T) {
	d := &fakeDelta{}
	_, ts := start(t, fixture(t), WithDelta(d))
	r := raw(t, ts, "GET", "/hello.json", "A-IM: vcdiff")
	wantStatus(t, r, 226)
	wantHeader(t, r, "Repr-Digest", helloRepr)
	if d.seen == nil || d.seen.File != "hello.json" || d.seen.Size != 19 || d.seen.ETag != r.Header.Get("ETag") {
		t.Errorf("delta saw %+v", d.seen)
	}
	wantStatus(t, raw(t, ts, "GET", "/hello.json"), http.StatusOK)
}
