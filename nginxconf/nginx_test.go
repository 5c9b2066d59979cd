package nginxconf

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hdig/hdig/check"
	"github.com/hdig/hdig/internal/peertest"
	"github.com/hdig/hdig/zsync"
)

// nginx runs the Debian nginx on loopback with root www and the include
// inc; it returns the origin's base URL.
func nginx(t *testing.T, www, inc string) string {
	t.Helper()
	bin := peertest.Need(t, "nginx")
	dir := t.TempDir()
	// Workers run as nobody: t.TempDir's 0700 directories must open.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		os.Chmod(d, 0o755)
	}
	for d := www; d != os.TempDir() && d != filepath.Dir(d); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := fmt.Sprintf(`daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path %[1]s;
	proxy_temp_path %[1]s;
	fastcgi_temp_path %[1]s;
	uwsgi_temp_path %[1]s;
	scgi_temp_path %[1]s;
	include %[2]s;
	server { listen 127.0.0.1:%[3]d; root %[4]s; gzip off; }
}
`, dir, inc, port, www)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stopNginx(t, cmd.Process, exited) })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return base
		}
		select {
		case <-exited:
			i = 400
		default:
		}
		if i >= 400 {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not start: %s %s", stderr.String(), log)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// writeTree writes the test files: names nginx maps must quote or match
// case-sensitively, a file of many blocks.
func writeTree(t *testing.T, www string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(www, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runIndex(t *testing.T, www, inc string) Stats {
	t.Helper()
	var old map[string]Entry
	if b, err := os.ReadFile(inc); err == nil {
		old = ReadState(bytes.NewReader(b))
	}
	entries, st, err := Index(www, Options{Old: old, Warnf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, www, entries); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inc, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return st
}

func testFiles() map[string][]byte {
	big := bytes.Repeat([]byte("0123456789abcdef"), 40000) // 640,000 bytes
	for i := range big {
		big[i] ^= byte(i * 7 / 13)
	}
	return map[string][]byte{
		"big.bin":           big,
		`sub/a "q" b.txt`:   []byte("spaces and quotes\n"),
		"sub/x\\y;{}#$.txt": []byte("backslash, semicolon, braces\n"),
		"Case.txt":          []byte("upper\n"),
		"case.txt":          []byte("lower\n"),
	}
}

// TestNginxServesReprDigest: a stock nginx with the include passes hdig
// check's Repr-Digest checks on 200, 206 and HEAD, and the zsync control
// file check, for names that need quoting or case-sensitive keys.
func TestNginxServesReprDigest(t *testing.T) {
	www := filepath.Join(t.TempDir(), "www")
	inc := filepath.Join(t.TempDir(), "hdig.conf")
	files := testFiles()
	writeTree(t, www, files)
	runIndex(t, www, inc)
	base := nginx(t, www, inc)
	for name := range files {
		u := base + (&url.URL{Path: "/" + name}).EscapedPath()
		rep := check.URL(context.Background(), u, check.Options{})
		got := map[string]check.Result{}
		for _, r := range rep.Checks {
			got[r.ID] = r
			t.Logf("%s: %s %s: %s", name, r.ID, r.Status, r.Message)
		}
		for _, id := range []string{"repr-digest.present", "repr-digest.match", "head.repr-digest", "range.repr-digest", "etag.consistency"} {
			if got[id].Status != check.Pass {
				t.Errorf("%s: %s = %s (%s), want pass", name, id, got[id].Status, got[id].Message)
			}
		}
		// Two ranges at once: nginx answers multipart/byteranges (a file
		// too small for two non-adjacent ranges in the window compared
		// skips).
		if st := got["range.multipart"].Status; st == check.Fail || st == check.Warn || len(files[name]) > 9 && st != check.Pass {
			t.Errorf("%s: range.multipart = %s (%s), want pass", name, st, got["range.multipart"].Message)
		}
		if want := check.Pass; got["zsync.control"].Status != want && len(files[name]) > 0 {
			t.Errorf("%s: zsync.control = %s (%s), want %s", name, got["zsync.control"].Status, got["zsync.control"].Message, want)
		}
	}
	// A 404 (a case variant of an indexed name) carries no digest.
	resp, err := http.Get(base + "/BIG.bin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Repr-Digest") != "" || resp.Header.Get("Link") != "" {
		t.Errorf("GET /BIG.bin: %d with Repr-Digest %q, Link %q; want 404 without either", resp.StatusCode, resp.Header.Get("Repr-Digest"), resp.Header.Get("Link"))
	}
}

// TestIndexRerunHashesOnlyChanged: a second run reads only the file that
// changed (and its new control file), and nginx then serves its new digest.
func TestIndexRerunHashesOnlyChanged(t *testing.T) {
	www := filepath.Join(t.TempDir(), "www")
	inc := filepath.Join(t.TempDir(), "hdig.conf")
	files := testFiles()
	writeTree(t, www, files)
	first := runIndex(t, www, inc)
	if first.Hashed != 2*len(files) || first.Controls != len(files) {
		t.Fatalf("first run: %+v, want %d files read and %d control files", first, 2*len(files), len(files))
	}
	if again := runIndex(t, www, inc); again.Hashed != 0 || again.Files != 2*len(files) {
		t.Fatalf("unchanged re-run: %+v, want 0 read of %d", again, 2*len(files))
	}
	writeTree(t, www, map[string][]byte{"case.txt": []byte("lower, edited\n")})
	if st := runIndex(t, www, inc); st.Hashed != 2 || st.Controls != 1 {
		t.Fatalf("re-run after one edit: %+v, want 2 read (case.txt and case.txt.zsync), 1 control file", st)
	}
	base := nginx(t, www, inc)
	rep := check.URL(context.Background(), base+"/case.txt", check.Options{})
	for _, r := range rep.Checks {
		if strings.HasPrefix(r.ID, "repr-digest.match") || r.ID == "zsync.control" {
			if r.Status != check.Pass {
				t.Errorf("after the edit: %s = %s (%s), want pass", r.ID, r.Status, r.Message)
			}
		}
	}
}

// TestRefuseAndQuote: names nginx cannot take are refused; quoting
// escapes exactly backslash and double quote.
func TestRefuseAndQuote(t *testing.T) {
	for _, bad := range []string{"/a\nb", "/tab\t", "/\xff.bin", "/del\x7f"} {
		if Refuse(bad) == "" {
			t.Errorf("Refuse(%q) = \"\", want a reason", bad)
		}
	}
	if why := Refuse(`/a "b" \c;{}$#.txt`); why != "" {
		t.Errorf("Refuse of a quotable name: %s", why)
	}
	if got, want := quote(`/a"b\c`), `"/a\"b\\c"`; got != want {
		t.Errorf("quote = %s, want %s", got, want)
	}
	if got, want := key("/A.b", true), `"~^/A\\.b$"`; got != want {
		t.Errorf("key = %s, want %s", got, want)
	}
}

// TestIndexKeepsCurrentControlFile: a control file that still describes
// its file (here one with an absolute URL, as zsyncmake -u writes) is kept;
// a stale one is replaced.
func TestIndexKeepsCurrentControlFile(t *testing.T) {
	www := filepath.Join(t.TempDir(), "www")
	data := bytes.Repeat([]byte("abc"), 5000)
	writeTree(t, www, map[string][]byte{"a.bin": data, "b.bin": data})
	ctl, err := zsync.Make(bytes.NewReader(data), int64(len(data)), zsync.MakeOptions{URL: "http://mirror.example/a.bin"})
	if err != nil {
		t.Fatal(err)
	}
	var theirs bytes.Buffer
	ctl.WriteTo(&theirs)
	stale, _ := zsync.Make(bytes.NewReader(data[1:]), int64(len(data)-1), zsync.MakeOptions{URL: "b.bin"})
	var old bytes.Buffer
	stale.WriteTo(&old)
	writeTree(t, www, map[string][]byte{"a.bin.zsync": theirs.Bytes(), "b.bin.zsync": old.Bytes()})
	if _, _, err := Index(www, Options{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(www, "a.bin.zsync")); !bytes.Equal(got, theirs.Bytes()) {
		t.Error("a current control file was replaced")
	}
	got, _ := os.ReadFile(filepath.Join(www, "b.bin.zsync"))
	c, err := zsync.Read(bytes.NewReader(got))
	if err != nil || c.Length != int64(len(data)) {
		t.Errorf("a stale control file was kept (Length %v, %v)", c, err)
	}
}

// stopNginx stops the master the way nginx is meant to be stopped
// (SIGTERM: it stops its workers, then exits) and checks that none of its
// workers outlives it. A SIGKILL to the master left each worker running,
// orphaned, after every test run.
func stopNginx(t *testing.T, master *os.Process, exited <-chan struct{}) {
	workers := childrenOf(master.Pid)
	master.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(time.Minute): // not an assertion: a stuck master is killed
		master.Kill()
		<-exited
	}
	for _, pid := range workers {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !strings.Contains(string(st), ") Z ") {
				t.Errorf("nginx worker %d outlived its master", pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// childrenOf lists the processes whose parent is pid (from /proc; none
// where there is no /proc).
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		rest := string(st[strings.LastIndexByte(string(st), ')')+1:])
		if f := strings.Fields(rest); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}
