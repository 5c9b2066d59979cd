package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// temps lists the temporary upload files anywhere under dir.
func temps(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".hdig-upload-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// waitTemp polls until an upload's temporary file exists (a bounded number
// of looks).
func waitTemp(t *testing.T, dir string) {
	t.Helper()
	for i := 0; i < 4000; i++ {
		if len(temps(dir)) > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no temporary upload file appeared")
}

// stalledPut starts a PUT whose body sends 64 KiB and then waits for the
// returned function, which ends it.
func stalledPut(t *testing.T, url string) (func(), <-chan *http.Response) {
	pr, pw := io.Pipe()
	req, err := http.NewRequest("PUT", url, pr)
	must(t, err)
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- nil
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- resp
	}()
	wrote := make(chan struct{})
	go func() { pw.Write(bytes.Repeat([]byte("x"), 64<<10)); close(wrote) }()
	return sync.OnceFunc(func() { <-wrote; pw.Close() }), done
}

// TestUploadChild is the server that TestUploadTempAfterKill kills.
func TestUploadChild(t *testing.T) {
	dir := os.Getenv("HDIG_UPLOAD_CHILD_DIR")
	if dir == "" {
		t.Skip("runs as a child of TestUploadTempAfterKill")
	}
	s, err := New(dir, WithWritable())
	must(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	fmt.Printf("addr %s\n", ln.Addr())
	s.Serve(context.Background(), ln, nil)
}

// TestUploadTempAfterKill: a server killed (SIGKILL) during an upload
// leaves its temporary file where the next start finds and removes it,
// and nowhere a client or a listing sees it.
func TestUploadTempAfterKill(t *testing.T) {
	dir := fixture(t)
	child := exec.Command(os.Args[0], "-test.run=^TestUploadChild$")
	child.Env = append(os.Environ(), "HDIG_UPLOAD_CHILD_DIR="+dir)
	out, err := child.StdoutPipe()
	must(t, err)
	must(t, child.Start())
	defer child.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	must(t, err)
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "addr ")
	if !ok {
		t.Fatalf("child said %q", line)
	}
	finish, _ := stalledPut(t, "http://"+addr+"/sub/new.bin")
	defer finish()
	waitTemp(t, dir)
	must(t, child.Process.Kill())
	child.Wait()
	for _, p := range temps(dir) {
		if rel, _ := filepath.Rel(dir, p); !strings.HasPrefix(rel, uploadDir+"/") {
			t.Errorf("temporary file %s is outside %s", rel, uploadDir)
		}
	}
	s, err := New(dir) // the restart
	must(t, err)
	s.Close()
	if left := temps(dir); len(left) > 0 {
		t.Errorf("a restart left %v", left)
	}
}

// TestUploadTempOfRunningServerKept: a second server starting on the same
// directory does not remove the temporary file of an upload in progress.
func TestUploadTempOfRunningServerKept(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	finish, done := stalledPut(t, ts.URL+"/new.bin")
	waitTemp(t, dir)
	s2, err := New(dir)
	must(t, err)
	s2.Close()
	if len(temps(dir)) == 0 {
		t.Fatal("a starting server removed a running upload's temporary file")
	}
	finish()
	if resp := <-done; resp == nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload after the second start: %v", resp)
	}
	if got := readFile(t, filepath.Join(dir, "new.bin")); len(got) != 64<<10 {
		t.Errorf("stored %d bytes, want %d", len(got), 64<<10)
	}
	noTemps(t, dir)
}

// TestGzipBombRefused: gzip request content that expands far beyond its
// size is refused with 413 as it streams, long before --max-upload of
// decoded bytes are written.
func TestGzipBombRefused(t *testing.T) {
	dir := fixture(t)
	_, ts := start(t, dir, WithWritable())
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write(make([]byte, 40<<20))
	zw.Close()
	r := upload(t, ts, "PUT", "/bomb.bin", gz.Bytes(), "Content-Encoding: gzip")
	wantStatus(t, r, http.StatusRequestEntityTooLarge)
	if _, err := os.Stat(filepath.Join(dir, "bomb.bin")); err == nil {
		t.Error("the bomb was stored")
	}
	noTemps(t, dir)
	// Within the bound, gzip content is stored decoded.
	text := bytes.Repeat([]byte("a line of text that repeats, 0123456789\n"), 1<<16)
	gz.Reset()
	zw.Reset(&gz)
	zw.Write(text)
	zw.Close()
	r = upload(t, ts, "PUT", "/text.txt", gz.Bytes(), "Content-Encoding: gzip")
	wantStatus(t, r, http.StatusNoContent)
	if got := readFile(t, filepath.Join(dir, "text.txt")); got != string(text) {
		t.Errorf("stored %d bytes, want %d", len(got), len(text))
	}
}
