package delta

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
)

// The per-key locks are dropped once unused: a long-running origin must not
// keep one mutex per file and per delta it ever served.
func TestDeltaLocksReleased(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	var tags []string
	for v := 1; v <= 3; v++ {
		o.put(text(500, v))
		r, _ := o.get(nil)
		tags = append(tags, r.Header.Get("ETag"))
	}
	for _, aim := range []string{"vcdiff", "gdiff", "diffe, gzip"} {
		if resp, _ := o.get(map[string]string{"A-IM": aim, "If-None-Match": tags[0]}); resp.StatusCode != http.StatusIMUsed {
			t.Fatalf("A-IM %s: status %d, want 226", aim, resp.StatusCode)
		}
	}
	o.h.mu.Lock()
	n := len(o.h.locks)
	o.h.mu.Unlock()
	if n != 0 {
		t.Errorf("%d locks left after the requests ended, want 0", n)
	}
}

// If-None-Match compares weakly and "*" matches: a client holding the
// current version gets 304, not 406, even when it refuses identity.
func TestDeltaCurrentWeakOrStarIs304(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	e1 := o.putETag(text(500, 1))
	for _, inm := range []string{"W/" + e1, "*", `"sha256-unknown", W/` + e1} {
		resp, _ := o.get(map[string]string{"A-IM": "vcdiff, identity;q=0", "If-None-Match": inm})
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match %s: status %d, want 304", inm, resp.StatusCode)
		}
		if resp.Header.Get("ETag") != e1 || resp.Header.Get("Repr-Digest") != reprSHA256(text(500, 1)) {
			t.Errorf("If-None-Match %s: ETag %q Repr-Digest %q", inm, resp.Header.Get("ETag"), resp.Header.Get("Repr-Digest"))
		}
	}
}

// A retained tag next to the current one: the client has the current
// version, so 304 (with ETag and Repr-Digest), not a delta.
func TestDeltaRetainedAndCurrentIs304(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	o.put(text(500, 1))
	r1, _ := o.get(nil)
	o.put(text(500, 2))
	r2, _ := o.get(nil)
	resp, body := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": r1.Header.Get("ETag") + ", " + r2.Header.Get("ETag")})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("status %d with %d bytes, want 304", resp.StatusCode, len(body))
	}
	if resp.Header.Get("ETag") != r2.Header.Get("ETag") || resp.Header.Get("Repr-Digest") != reprSHA256(text(500, 2)) {
		t.Errorf("304: ETag %q Repr-Digest %q", resp.Header.Get("ETag"), resp.Header.Get("Repr-Digest"))
	}
}

// HEAD with A-IM and a retained base: the server's 200 (226 is for GET),
// with the Repr-Digest and ETag a GET would carry, and no delta is made.
func TestDeltaHEAD(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	v2 := text(500, 2)
	o.put(text(500, 1))
	r1, _ := o.get(nil)
	o.put(v2)
	o.get(nil)
	req, _ := http.NewRequest(http.MethodHead, o.url, nil)
	req.Header.Set("A-IM", "vcdiff")
	req.Header.Set("If-None-Match", r1.Header.Get("ETag"))
	resp, err := plainClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("IM") != "" {
		t.Errorf("HEAD: status %d IM %q, want 200 without IM", resp.StatusCode, resp.Header.Get("IM"))
	}
	if resp.Header.Get("Repr-Digest") != reprSHA256(v2) {
		t.Errorf("HEAD: Repr-Digest %q, want the current %q", resp.Header.Get("Repr-Digest"), reprSHA256(v2))
	}
	if ds, _ := os.ReadDir(filepath.Join(o.h.dir, "deltas")); len(ds) != 0 {
		t.Errorf("HEAD made %d deltas", len(ds))
	}
}

// Any client can ask for deltas, each a CPU- and memory-heavy encode: only
// a bounded number run at once, whatever the number of requests.
func TestDeltaEncodesBounded(t *testing.T) {
	o := newOrigin(t, 8)
	var tags []string
	for v := 1; v <= 6; v++ {
		o.put(text(500, v))
		r, _ := o.get(nil)
		tags = append(tags, r.Header.Get("ETag"))
	}
	var active, peak atomic.Int32
	encodeHook = func(context.Context) {
		n := active.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		active.Add(-1)
	}
	t.Cleanup(func() { encodeHook = nil })
	var wg sync.WaitGroup
	for _, base := range tags[:5] {
		for _, aim := range []string{"vcdiff", "gdiff"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("GET", o.url, nil)
				req.Header.Set("A-IM", aim)
				req.Header.Set("If-None-Match", base)
				resp, err := plainClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusIMUsed {
					t.Errorf("status %d, want 226", resp.StatusCode)
				}
			}()
		}
	}
	wg.Wait()
	if p := int(peak.Load()); p > cap(o.h.encodes) || p < 1 {
		t.Errorf("%d encodes ran at once, want at most %d", p, cap(o.h.encodes))
	}
}

// A cancelled request stops waiting for an encode slot.
func TestDeltaEncodeWaitCancelled(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	o.put(text(500, 1))
	r1, _ := o.get(nil)
	o.put(text(500, 2))
	o.get(nil)
	for range cap(o.h.encodes) {
		o.h.encodes <- struct{}{} // every slot busy
	}
	t.Cleanup(func() {
		for range cap(o.h.encodes) {
			<-o.h.encodes
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", o.url, nil)
	req.Header.Set("A-IM", "vcdiff")
	req.Header.Set("If-None-Match", r1.Header.Get("ETag"))
	if resp, err := plainClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("status %d while every encode slot is busy, want the request to time out", resp.StatusCode)
	}
	// The handler notices the cancellation and returns: its locks go. A
	// handler that keeps waiting is reported by go test's -timeout.
	for {
		o.h.mu.Lock()
		n := len(o.h.locks)
		o.h.mu.Unlock()
		if n == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// plainClient sends no Accept-Encoding: deltas are made of the identity.
var plainClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// A 226 answers Want-Content-Digest as the server's other responses do:
// a malformed field or a refused sha-256 still gets a Content-Digest of
// the delta's bytes.
func TestDeltaContentDigestFallback(t *testing.T) {
	o := newOrigin(t, DefaultHistory)
	o.put(text(500, 1))
	r1, _ := o.get(nil)
	o.put(text(500, 2))
	o.get(nil)
	for want, prefix := range map[string]string{"not a dictionary(": "sha-256=:", "sha-256=0": "sha-512=:"} {
		resp, body := o.get(map[string]string{"A-IM": "vcdiff", "If-None-Match": r1.Header.Get("ETag"), "Want-Content-Digest": want})
		if resp.StatusCode != http.StatusIMUsed {
			t.Fatalf("status %d, want 226", resp.StatusCode)
		}
		cd := resp.Header.Get("Content-Digest")
		if !strings.HasPrefix(cd, prefix) {
			t.Errorf("Want-Content-Digest %q: Content-Digest %q, want %s…", want, cd, prefix)
			continue
		}
		f := verify.ParseDigestField(verify.ContentDigest, []string{cd})
		if alg, _ := verify.Lookup(f.Digests[0].Algorithm); !bytes.Equal(f.Digests[0].Value, hashOf(alg, body)) {
			t.Errorf("Want-Content-Digest %q: Content-Digest does not cover the delta", want)
		}
	}
}

func hashOf(a verify.Algorithm, b []byte) []byte {
	h := a.New()
	h.Write(b)
	return h.Sum(nil)
}
