package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// zsyncOrigin serves body at /f (ranges, multipart, a strong ETag and its
// Repr-Digest) and its control file at /f.zsync, counting range requests.
func zsyncOrigin(t *testing.T, body []byte) (url string, ranges *int) {
	t.Helper()
	ctl, err := zsync.Make(bytes.NewReader(body), int64(len(body)), zsync.MakeOptions{URL: "f"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ctl.WriteTo(&buf)
	sum := sha256.Sum256(body)
	n := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".zsync") {
			w.Write(buf.Bytes())
			return
		}
		if r.Header.Get("Range") != "" {
			n++
		}
		w.Header().Set("ETag", `"v2"`)
		w.Header().Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
	}))
	t.Cleanup(ts.Close)
	return ts.URL, &n
}

// TestClientZsync: the engine alone rebuilds a file from a seed that
// differs in three places, fetches only the blocks the seed lacks, and
// proves the result with the origin's Repr-Digest.
func TestClientZsync(t *testing.T) {
	body := make([]byte, 256<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range body {
		body[i] = byte(r.Uint32())
	}
	url, ranges := zsyncOrigin(t, body)
	dir := t.TempDir()
	seed, out := filepath.Join(dir, "seed"), filepath.Join(dir, "out")
	old := bytes.Clone(body)
	for _, at := range []int{100, 100_000, 200_000} {
		old[at] ^= 1
	}
	os.WriteFile(seed, old, 0o644)
	c, _ := NewClient(Options{Timeout: testStall})
	res, err := c.Zsync(context.Background(), &Request{URL: url + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}, ZsyncOptions{Output: out, Seeds: []string{seed}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, body) {
		t.Fatal("rebuilt file differs")
	}
	if !res.Verdict.Verified(verify.ReprDigest) || res.Strategy != StrategyZsync {
		t.Errorf("verdict %+v, strategy %s: want Repr-Digest verified, zsync", res.Verdict, res.Strategy)
	}
	if res.Received > 3*2*2048 || res.Reused < int64(len(body))-3*2*2048 || *ranges == 0 {
		t.Errorf("received %d, reused %d in %d range requests: want at most 6 blocks received, the rest reused", res.Received, res.Reused, *ranges)
	}
	for _, p := range []string{out + PartSuffix, out + ZsyncSidecarSuffix} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left after success", p)
		}
	}
}

// TestClientZsyncSeedUnreadable: a seed that cannot be read is the
// caller's input error (ErrInput), not the origin's, and leaves nothing.
func TestClientZsyncSeedUnreadable(t *testing.T) {
	url, _ := zsyncOrigin(t, bytes.Repeat([]byte("z"), 8192))
	out := filepath.Join(t.TempDir(), "out")
	c, _ := NewClient(Options{Timeout: testStall})
	_, err := c.Zsync(context.Background(), &Request{URL: url + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}, ZsyncOptions{Output: out, Seeds: []string{out + ".missing"}})
	if !errors.Is(err, ErrInput) {
		t.Fatalf("err %v, want ErrInput", err)
	}
	if _, err := os.Stat(out + PartSuffix); err == nil {
		t.Error("part left after a failed run")
	}
}

// TestZsyncPartHardLinkedStartsOver: a part bound to the run's control
// file but with a second name (a hard link: someone else's in a shared
// directory, or a user's copy made with ln) is not a part -C or zsync may
// write in place (OpenPart refuses it, since the writes would reach the
// other name). openPart took any regular file as resumable, so every run
// failed on it until it was removed by hand; it is now read as a seed
// and the run goes on, the other name untouched.
func TestZsyncPartHardLinkedStartsOver(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	url, _ := zsyncOrigin(t, body)
	ctl, err := zsync.Make(bytes.NewReader(body), int64(len(body)), zsync.MakeOptions{URL: "f"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, other := filepath.Join(dir, "out"), filepath.Join(dir, "other")
	held := bytes.Repeat([]byte{'x'}, len(body))
	os.WriteFile(other, held, 0o644)
	if err := os.Link(other, out+PartSuffix); err != nil {
		t.Fatal(err)
	}
	side := zsyncSide{SHA1: hex.EncodeToString(ctl.SHA1[:]), Length: ctl.Length, Blocksize: ctl.Blocksize}
	if err := writeZsyncSide(out+ZsyncSidecarSuffix, side); err != nil {
		t.Fatal(err)
	}
	c, _ := NewClient(Options{Timeout: testStall})
	if _, err := c.Zsync(context.Background(), &Request{URL: url + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}, ZsyncOptions{Output: out}); err != nil {
		t.Fatalf("a hard-linked part stopped the run: %v", err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, body) {
		t.Error("rebuilt file differs")
	}
	if got, _ := os.ReadFile(other); !bytes.Equal(got, held) {
		t.Error("the part's other name was written through")
	}
}

// TestZsyncLinkStaysOut: the control file a public origin's Link names is
// held to the rule of its Link mirrors (linkRefusal, dialGuard): on a
// loopback or private address, literal or by its name's resolution, it is
// not fetched. The origin is reached by a name pinned to 127.0.0.1, so it
// counts as public.
func TestZsyncLinkStaysOut(t *testing.T) {
	var inner atomic.Int64
	in := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.Add(1)
		http.NotFound(w, r)
	}))
	defer in.Close()
	iu, _ := url.Parse(in.URL)
	for _, ctl := range []string{in.URL + "/f.zsync", "http://i.example:" + iu.Port() + "/f.zsync"} {
		origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "<"+ctl+`>; rel="describedby"; type="application/x-zsync"`)
			w.Write([]byte("file"))
		}))
		ou, _ := url.Parse(origin.URL)
		c, err := NewClient(Options{Timeout: testStall, Connection: Connection{Resolve: map[string]string{
			"o.example:" + ou.Port(): "127.0.0.1", "i.example:" + iu.Port(): "127.0.0.1"}}})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "f")
		_, err = c.Zsync(context.Background(), &Request{URL: "http://o.example:" + ou.Port() + "/f", Policy: verify.DefaultPolicy(), Header: http.Header{}}, ZsyncOptions{Output: out})
		origin.Close()
		if err == nil || !strings.Contains(err.Error(), "loopback or private") {
			t.Errorf("control file %s: %v, want refused as inward", ctl, err)
		}
		if n := inner.Swap(0); n != 0 {
			t.Errorf("control file %s: the inner address got %d requests, want 0", ctl, n)
		}
	}
}

// TestZsyncControlURLStaysOut: the target a public origin's control file
// names in its URL: line is the origin's choice, as its Link is: held to
// the same rule (linkRefusal, dialGuard), the file's HEAD and ranges never
// went to a loopback or private address, literal or by its name's
// resolution, while the control file a Link names did.
func TestZsyncControlURLStaysOut(t *testing.T) {
	var inner atomic.Int64
	in := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.Add(1)
		http.NotFound(w, r)
	}))
	defer in.Close()
	iu, _ := url.Parse(in.URL)
	body := genData(8<<10, 2)
	for _, target := range []string{in.URL + "/f", "http://i.example:" + iu.Port() + "/f"} {
		ctl, err := zsync.Make(bytes.NewReader(body), int64(len(body)), zsync.MakeOptions{URL: target})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		ctl.WriteTo(&buf)
		origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(buf.Bytes()) }))
		ou, _ := url.Parse(origin.URL)
		c, err := NewClient(Options{Timeout: testStall, Connection: Connection{Resolve: map[string]string{
			"o.example:" + ou.Port(): "127.0.0.1", "i.example:" + iu.Port(): "127.0.0.1"}}})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "f")
		_, err = c.Zsync(context.Background(), &Request{URL: "http://o.example:" + ou.Port() + "/f.zsync", Policy: verify.DefaultPolicy(), Header: http.Header{}}, ZsyncOptions{Output: out})
		origin.Close()
		if err == nil || !strings.Contains(err.Error(), "loopback or private") {
			t.Errorf("URL: %s: %v, want refused as inward", target, err)
		}
		if n := inner.Swap(0); n != 0 {
			t.Errorf("URL: %s: the inner address got %d requests, want 0", target, n)
		}
	}
}
