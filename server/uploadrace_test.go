package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Two PUTs conditioned on the same ETag (If-Match) must not both succeed:
// the second writer's precondition is stale once the first stored (found
// by review: preconditions were evaluated before the content arrived, and
// not again before the rename, so a slow writer overwrote a newer
// version). If the server evaluated A's precondition only after B stored,
// A gets 412 all the same: the wait orders the requests, it decides
// nothing.
func TestUploadIfMatchNoLostUpdate(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	etag := raw(t, ts, "GET", "/hello.json").Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	a := []byte("writer A\n")
	// Writer A: headers sent, body held back.
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	must(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "PUT /hello.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: %d\r\nIf-Match: %s\r\n\r\n", len(a), etag)
	time.Sleep(300 * time.Millisecond) // A's precondition is evaluated now
	// Writer B completes with the same If-Match.
	bBody := []byte("writer B\n")
	rb := upload(t, ts, "PUT", "/hello.json", bBody, "If-Match: "+etag)
	wantStatus(t, rb, http.StatusNoContent)
	// A sends its body.
	conn.Write(a)
	ra, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: "PUT"})
	must(t, err)
	io.Copy(io.Discard, ra.Body)
	if ra.StatusCode != http.StatusPreconditionFailed {
		t.Errorf("writer A got %d, want 412: its If-Match %s no longer names the file; file now %q (B's update lost)",
			ra.StatusCode, etag, readFile(t, filepath.Join(dir, "hello.json")))
	}
}

// Concurrent PUTs to one path: afterwards a GET's Repr-Digest describes the
// bytes it serves (found by review: answerStored looked the file up after
// the rename, so another upload's rename in between filed the first
// upload's digests, as trusted, under the second upload's file).
func TestConcurrentUploadsKeepDigests(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	for round := range 200 {
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf("round %d writer %d\n", round, i)
				req, _ := http.NewRequest("PUT", ts.URL+"/race.txt", strings.NewReader(body))
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		g := raw(t, ts, "GET", "/race.txt", "Accept-Encoding: identity")
		if got, want := g.Header.Get("Repr-Digest"), sfSHA256(g.body); got != want {
			t.Fatalf("round %d: GET serves %q with Repr-Digest %s, want %s", round, g.body, got, want)
		}
	}
}

// A file renamed over an upload's target by another process between the
// upload's rename and the caching of its digests is not the upload's
// version: its GET, HEAD and If-None-Match are answered by its own bytes
// (found by review: answerStored filed the upload's digests, as trusted,
// under whatever file the path named after the rename, so that file was
// served with them, its HEAD carried them, and the upload's ETag got 304).
func TestUploadRenamedOverKeepsDigests(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	other := []byte("another process's file\n")
	must(t, os.WriteFile(filepath.Join(dir, "other.json"), other, 0o644))
	storedHook = func(target string) {
		must(t, os.Rename(filepath.Join(dir, "other.json"), filepath.Join(dir, target)))
	}
	t.Cleanup(func() { storedHook = nil })
	put := upload(t, ts, "PUT", "/hello.json", []byte("the upload\n"))
	wantStatus(t, put, http.StatusNoContent)
	storedHook = nil
	for _, m := range []string{"HEAD", "GET"} {
		r := raw(t, ts, m, "/hello.json")
		wantStatus(t, r, 200)
		wantHeader(t, r, "Repr-Digest", sfSHA256(other))
		if m == "GET" && (r.bodyErr != nil || string(r.body) != string(other)) {
			t.Errorf("GET: body %q, err %v", r.body, r.bodyErr)
		}
	}
	if r := raw(t, ts, "GET", "/hello.json", "If-None-Match: "+put.Header.Get("ETag")); r.StatusCode == http.StatusNotModified {
		t.Errorf("If-None-Match %s (the upload) got 304 over another file", put.Header.Get("ETag"))
	}
}
