package cmd

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func notFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusNotFound)
	w.Write([]byte("no such thing\n"))
}

// TestGetFail: -f is hdig's default (exit 4, nothing written);
// --fail-with-body writes the error body and still exits 4; an existing
// -o FILE is never replaced by it.
func TestGetFail(t *testing.T) {
	srv, _ := seeingOrigin(t, notFound)
	code, out, _ := runHdig(t, "get", "-f", srv.URL+"/x")
	if code != ExitNetwork || out != "" {
		t.Errorf("-f: exit %d, stdout %q; want 4 and nothing", code, out)
	}
	code, out, _ = runHdig(t, "get", "--fail-with-body", srv.URL+"/x")
	if code != ExitNetwork || out != "no such thing\n" {
		t.Errorf("--fail-with-body: exit %d, stdout %q; want 4 and the body", code, out)
	}
	dir := t.TempDir()
	fresh, kept := filepath.Join(dir, "fresh"), filepath.Join(dir, "kept")
	os.WriteFile(kept, []byte("old"), 0o644)
	if code, _, _ := runHdig(t, "get", "--fail-with-body", "-o", fresh, srv.URL+"/x"); code != ExitNetwork {
		t.Errorf("exit %d, want 4", code)
	}
	assertFile(t, fresh, "no such thing\n")
	runHdig(t, "get", "--fail-with-body", "-o", kept, srv.URL+"/x")
	assertFile(t, kept, "old")
	// With -O -J the error body lands under -O's name, not under the
	// hidden name -J downloads to.
	jdir := t.TempDir()
	if code, _, _ := runHdig(t, "get", "--fail-with-body", "-O", "-J", "--output-dir", jdir, srv.URL+"/x"); code != ExitNetwork {
		t.Errorf("-O -J --fail-with-body: exit %d, want 4", code)
	}
	assertFile(t, filepath.Join(jdir, "x"), "no such thing\n")
	if names, _ := filepath.Glob(filepath.Join(jdir, ".hdig-J.*")); len(names) != 0 {
		t.Errorf("-J left %v", names)
	}
	if code, _, _ := runHdig(t, "get", "-f", "--fail-with-body", srv.URL); code != ExitUsage {
		t.Errorf("-f with --fail-with-body: exit %d, want 2", code)
	}
}

// TestGetSilentShowError: -s hides the error line, -sS shows it; the exit
// status is the same.
func TestGetSilentShowError(t *testing.T) {
	srv, _ := seeingOrigin(t, notFound)
	code, _, stderr := runHdig(t, "get", "-s", srv.URL+"/x")
	if code != ExitNetwork || stderr != "" {
		t.Errorf("-s: exit %d, stderr %q; want 4 and nothing", code, stderr)
	}
	code, _, stderr = runHdig(t, "get", "-sS", srv.URL+"/x")
	if code != ExitNetwork || !strings.Contains(stderr, "404") {
		t.Errorf("-sS: exit %d, stderr %q; want 4 and the error", code, stderr)
	}
	bad, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Repr-Digest", emptySHA256)
		w.Write([]byte(helloBody))
	})
	code, _, stderr = runHdig(t, "get", "-sS", bad.URL)
	if code != ExitIntegrity || !strings.Contains(stderr, "mismatch") {
		t.Errorf("-sS mismatch: exit %d, stderr %q; want 1 and the verdict", code, stderr)
	}
}

// TestGetWriteOut: curl's variables and hdig's, after the body, on stdout.
func TestGetWriteOut(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("X-Thing", "v1")
		helloHandler(w, r)
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "o.json")
	format := `%{http_code} %{response_code} %{size_download} %{url_effective} %{content_type}|%{filename_effective}|%{num_redirects} %{exitcode} [%{errormsg}] %{verdict} %{repr_digest} %{strategy} %{bytes_received} %header{x-thing} 100%%\n`
	code, stdout, stderr := runHdig(t, "get", "-s", "-L", "-o", out, "-w", format, srv.URL+"/old")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "200 200 19 " + srv.URL + "/new application/json|" + out + "|1 0 [] verified " + helloSHA256 + " full 19 v1 100%\n"
	if stdout != want {
		t.Errorf("-w:\n got %q\nwant %q", stdout, want)
	}
	code, stdout, _ = runHdig(t, "get", "-o", filepath.Join(dir, "redirect.out"), "-w", "%{http_code}:%{exitcode}:%{verdict}", srv.URL+"/old")
	if code != ExitOK || stdout != "301:0:unverified" {
		t.Errorf("-w without -L: exit %d, %q", code, stdout)
	}
	code, stdout, _ = runHdig(t, "get", "-w", "%{stderr}%{time_total}%{stdout}x", srv.URL+"/")
	if code != 0 || stdout != helloBody+"x" {
		t.Errorf("%%{stderr}: stdout %q", stdout)
	}
	fail, _ := seeingOrigin(t, notFound)
	code, stdout, _ = runHdig(t, "get", "-s", "-w", "%{http_code} %{exitcode} %{errormsg}", fail.URL)
	if code != ExitNetwork || stdout != "404 4 server answered 404 Not Found: no such thing" {
		t.Errorf("-w on failure: exit %d, %q", code, stdout)
	}
	for _, args := range [][]string{
		{"-w", "%{nonsense}", srv.URL},
		{"-w", "%{http_code}", "--json", "-o", out, srv.URL},
		{"-i", "--json", "-o", out, srv.URL},
		{"-w", "@/nonexistent", srv.URL},
	} {
		if code, _, _ := runHdig(t, append([]string{"get"}, args...)...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	fmtFile := filepath.Join(dir, "fmt")
	os.WriteFile(fmtFile, []byte(`%{response_code}\n`), 0o644)
	if _, stdout, _ := runHdig(t, "get", "-s", "-o", out, "-w", "@"+fmtFile, srv.URL); stdout != "200\n" {
		t.Errorf("-w @FILE: %q", stdout)
	}
}

// TestGetIncludeAndDumpHeader: -i puts each response's head (redirects
// included) before the body; -D FILE holds the same heads.
func TestGetIncludeAndDumpHeader(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		helloHandler(w, r)
	})
	code, stdout, _ := runHdig(t, "get", "-s", "-i", "-L", srv.URL+"/old")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	heads := strings.Split(stdout, "\r\n\r\n")
	if len(heads) != 3 || !strings.HasPrefix(heads[0], "HTTP/1.1 302 Found\r\n") ||
		!strings.HasPrefix(heads[1], "HTTP/1.1 200 OK\r\n") || !strings.Contains(heads[1], "Repr-Digest: "+helloSHA256) || heads[2] != helloBody {
		t.Errorf("-i -L: %q", stdout)
	}
	dir := t.TempDir()
	hdr := filepath.Join(dir, "h.txt")
	code, stdout, _ = runHdig(t, "get", "-s", "-L", "-D", hdr, srv.URL+"/old")
	if code != 0 || stdout != helloBody {
		t.Fatalf("-D: exit %d, stdout %q", code, stdout)
	}
	b, _ := os.ReadFile(hdr)
	// Two runs: their Date fields may fall in different seconds.
	undated := regexp.MustCompile("Date: [^\r]*\r\n")
	if got, want := undated.ReplaceAllString(string(b), ""), undated.ReplaceAllString(heads[0]+"\r\n\r\n"+heads[1]+"\r\n\r\n", ""); got != want {
		t.Errorf("-D FILE = %q, want the heads of -i %q (Date aside)", b, want)
	}
	if _, stdout, _ := runHdig(t, "get", "-s", "-D", "-", srv.URL+"/new"); !strings.HasPrefix(stdout, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(stdout, "\r\n\r\n"+helloBody) {
		t.Errorf("-D -: %q", stdout)
	}
}

// TestGetOutputPlacement: --output-dir, --create-dirs, -R and -J.
func TestGetOutputPlacement(t *testing.T) {
	lastMod := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	disp := "attachment; filename=\"report.json\""
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", lastMod.Format(http.TimeFormat))
		if d := r.URL.Query().Get("cd"); d != "" {
			w.Header().Set("Content-Disposition", d)
		} else {
			w.Header().Set("Content-Disposition", disp)
		}
		helloHandler(w, r)
	})
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b")
	if code, _, _ := runHdig(t, "get", "-s", "-O", "--output-dir", deep, srv.URL+"/file.json"); code != ExitUsage {
		t.Errorf("--output-dir without --create-dirs into a missing dir: exit %d, want 2", code)
	}
	code, _, stderr := runHdig(t, "get", "-s", "-O", "-R", "--output-dir", deep, "--create-dirs", srv.URL+"/file.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p := filepath.Join(deep, "file.json")
	assertFile(t, p, helloBody)
	// curl makes the directories 0750 (less the umask), not 0755.
	if st, err := os.Stat(deep); err != nil || st.Mode().Perm()&0o007 != 0 {
		t.Errorf("--create-dirs made %s with mode %v; want no access for others, as curl's 0750", deep, st.Mode().Perm())
	}
	if st, err := os.Stat(p); err != nil || !st.ModTime().Equal(lastMod) {
		t.Errorf("-R: mtime %v, want %v", st.ModTime(), lastMod)
	}
	code, stdout, _ := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, "-w", "%{filename_effective}", srv.URL+"/file.json")
	if code != 0 || stdout != filepath.Join(dir, "report.json") {
		t.Fatalf("-J: exit %d, %q", code, stdout)
	}
	assertFile(t, filepath.Join(dir, "report.json"), helloBody)
	assertNoFile(t, filepath.Join(dir, "file.json"))
	// A file named like the URL is not touched when Content-Disposition
	// names another; without one, -O's name is written.
	os.WriteFile(filepath.Join(dir, "keep.json"), []byte("mine"), 0o644)
	os.Remove(filepath.Join(dir, "report.json"))
	if code, _, _ := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, srv.URL+"/keep.json"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	assertFile(t, filepath.Join(dir, "keep.json"), "mine")
	assertFile(t, filepath.Join(dir, "report.json"), helloBody)
	code, stdout, _ = runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, "-w", "%{filename_effective}", srv.URL+"/plain.json?cd=inline")
	if code != 0 || stdout != filepath.Join(dir, "plain.json") {
		t.Errorf("-J without a file name: exit %d, %q", code, stdout)
	}
	assertFile(t, filepath.Join(dir, "plain.json"), helloBody)
	runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, srv.URL+"/file.json")
	// Never over an existing file.
	code, _, _ = runHdig(t, "get", "-s", "-O", "-J", "--output-dir", dir, srv.URL+"/file.json")
	if code != ExitUsage {
		t.Errorf("-J onto an existing file: exit %d, want 2", code)
	}
	// Never outside the directory, never a dotfile, never control characters.
	for _, cd := range []string{`attachment; filename="../../evil.sh"`, `attachment; filename="/etc/passwd"`,
		`attachment; filename=".bashrc"`, `attachment; filename="..\\..\\x.bat"`, "attachment; filename*=UTF-8''%2E%2E%2Fup", `attachment; filename="a%0Ab"`,
		"attachment; filename*=UTF-8''ok%0Dname"} {
		sub := t.TempDir()
		inner := filepath.Join(sub, "in")
		code, stdout, _ := runHdig(t, "get", "-s", "-O", "-J", "--output-dir", inner, "--create-dirs", "-w", "%{filename_effective}", srv.URL+"/f.json?cd="+urlQuery(cd))
		if code != 0 {
			t.Errorf("%s: exit %d", cd, code)
			continue
		}
		if filepath.Dir(stdout) != inner || strings.HasPrefix(filepath.Base(stdout), ".") || strings.ContainsAny(stdout, "\r\n\\") {
			t.Errorf("%s: wrote %q", cd, stdout)
		}
		entries, _ := os.ReadDir(sub)
		if len(entries) != 1 {
			t.Errorf("%s: wrote outside %s: %v", cd, inner, entries)
		}
	}
	if code, _, _ := runHdig(t, "get", "-J", "-o", filepath.Join(dir, "x"), srv.URL+"/f"); code != ExitUsage {
		t.Errorf("-J without -O: exit %d, want 2", code)
	}
}

func urlQuery(s string) string {
	r := strings.NewReplacer("%", "%25", " ", "%20", "\"", "%22", ";", "%3B", "=", "%3D", "'", "%27", "*", "%2A", "\\", "%5C", "/", "%2F", "&", "%26")
	return r.Replace(s)
}

// TestGetVerboseShowsWhatIsSent: -v shows each request as it goes out,
// with the cookie jar's cookies, and with -L each redirect hop's response
// and the request that follows it, as curl -v does.
func TestGetVerboseShowsWhatIsSent(t *testing.T) {
	srv, _ := seeingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, "/hello", http.StatusFound)
			return
		}
		helloHandler(w, r)
	})
	jar := filepath.Join(t.TempDir(), "jar")
	host := strings.TrimPrefix(srv.URL, "http://")
	host = host[:strings.LastIndex(host, ":")]
	os.WriteFile(jar, []byte(host+"\tFALSE\t/\tFALSE\t0\tsid\tabc\n"), 0o644)
	code, _, stderr := runHdig(t, "get", "-v", "-L", "-b", jar, srv.URL+"/go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"> GET /go HTTP/1.1", "< HTTP/1.1 302 Found", "> GET /hello HTTP/1.1", "> Cookie: sid=abc"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-v output lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, "> Cookie: sid=abc"); n != 2 {
		t.Errorf("-v showed the cookie %d times, want 2 (one per request):\n%s", n, stderr)
	}
}

// TestGetWriteOutFailedVerdict: -w's %{verdict} says what --json's verdict
// says. A mismatch (exit 1) and an unmet --require-digest (exit 3) were
// "error", as a refused connection is, and %{errormsg} was "exit status 1".
func TestGetWriteOutFailedVerdict(t *testing.T) {
	tests := []struct {
		name     string
		origin   origin
		args     []string
		wantCode int
		want     string
	}{
		{name: "mismatch", origin: origin{header: map[string]string{"Repr-Digest": emptySHA256}},
			wantCode: ExitIntegrity, want: "1 mismatch ["},
		{name: "unverified under --require-digest", args: []string{"--require-digest"},
			wantCode: ExitUnverified, want: "3 unverified ["},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.origin
			o.body = []byte(helloBody)
			srv := o.serve(t)
			args := append([]string{"get", "-s", "-o", filepath.Join(t.TempDir(), "out"), "-w", "%{exitcode} %{verdict} [%{errormsg}]"}, tt.args...)
			code, stdout, stderr := runHdig(t, append(args, srv.URL)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tt.wantCode, stderr)
			}
			if !strings.HasPrefix(stdout, tt.want) {
				t.Errorf("-w: %q, want %q", stdout, tt.want)
			}
			if strings.Contains(stdout, "exit status") {
				t.Errorf("-w %%{errormsg}: %q says nothing of the verdict", stdout)
			}
		})
	}
}
