package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The contract's example: `{"hello": "world"}` without LF (RFC 9530 App. D).
const (
	sumHelloNoLF     = `{"hello": "world"}`
	sumHelloSHA256   = "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:"
	sumHelloAllEight = "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:, " +
		"sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, md5=:Sd/dVLAcvNLSq16eXua5uQ==:, " +
		"sha=:07CavjDP4u3/TungoUHJO/Wzr4c=:, unixsum=:GQU=:, unixcksum=:7zsHAA==:, adler=:OZkGFw==:, crc32c=:Q3lHIA==:"
	sumEmptySHA256 = "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
)

// runSumWith runs hdig in-process with stdin and returns its exit status,
// stdout and stderr.
func runSumWith(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	ios, in, out, errOut := Test()
	in.WriteString(stdin)
	code := Run(context.Background(), ios, args)
	return code, out.String(), errOut.String()
}

// writeFiles creates files in a new temporary directory, changes into it,
// and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

func TestSum(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		stdin   string
		args    []string
		code    int
		out     string
		errWant string // substring of stderr; "" means stderr must be empty
	}{
		{"contract example", map[string]string{"hello.json": sumHelloNoLF}, "", []string{"sum", "hello.json"},
			0, "hello.json: " + sumHelloSHA256 + "\n", ""},
		{"stdin without FILE", nil, sumHelloNoLF, []string{"sum"},
			0, sumHelloSHA256 + "\n", ""},
		{"stdin as -", nil, sumHelloNoLF, []string{"sum", "-"},
			0, sumHelloSHA256 + "\n", ""},
		{"stdin among files is named", map[string]string{"e": ""}, sumHelloNoLF, []string{"sum", "e", "-"},
			0, "e: " + sumEmptySHA256 + "\n-: " + sumHelloSHA256 + "\n", ""},
		{"all eight algorithms", map[string]string{"h": sumHelloNoLF}, "",
			[]string{"sum", "-a", "sha-512,sha-256,md5,sha,unixsum,unixcksum,adler,crc32c", "h"},
			0, "h: " + sumHelloAllEight + "\n", ""},
		{"repeated -a in given order, deduplicated", nil, sumHelloNoLF,
			[]string{"sum", "-a", "unixsum", "--algorithm", "SHA-256, unixsum"},
			0, "unixsum=:GQU=:, " + sumHelloSHA256 + "\n", ""},
		{"several files", map[string]string{"a": sumHelloNoLF, "b": ""}, "", []string{"sum", "-a", "adler", "a", "b"},
			0, "a: adler=:OZkGFw==:\nb: adler=:AAAAAQ==:\n", ""},
		{"name with colon and space", map[string]string{"x: y": ""}, "", []string{"sum", "x: y"},
			0, "x: y: " + sumEmptySHA256 + "\n", ""},
		{"missing file", map[string]string{"a": ""}, "", []string{"sum", "nosuch", "a"},
			2, "a: " + sumEmptySHA256 + "\n", "hdig: open nosuch: no such file or directory"},
		{"directory", nil, "", []string{"sum", "."},
			2, "", "hdig: read .: is a directory"},
		{"unknown algorithm", nil, "", []string{"sum", "-a", "sha-3"},
			2, "", `unknown digest algorithm "sha-3"`},
		{"empty algorithm list", nil, "", []string{"sum", "-a", ","},
			2, "", "empty digest algorithm list"},
		{"--quiet without --check", nil, "", []string{"sum", "--quiet"},
			2, "", "apply only with --check"},
		{"-a with --check", nil, "", []string{"sum", "-c", "-a", "md5"},
			2, "", "-a cannot be used with --check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeFiles(t, tt.files)
			code, out, errOut := runSumWith(t, tt.stdin, tt.args...)
			if code != tt.code || out != tt.out {
				t.Errorf("hdig %q = %d, stdout %q; want %d, %q (stderr %q)", tt.args, code, out, tt.code, tt.out, errOut)
			}
			if tt.errWant == "" && errOut != "" || !strings.Contains(errOut, tt.errWant) {
				t.Errorf("stderr = %q, want %q", errOut, tt.errWant)
			}
		})
	}
}

func TestSumCheckRoundTrip(t *testing.T) {
	files := map[string]string{"a.txt": "alpha\n", "b.bin": "\x00\x01\x02", "empty": "", "with: colon": "c"}
	writeFiles(t, files)
	code, list, errOut := runSumWith(t, "", "sum", "-a", "sha-256,sha-512,crc32c", "a.txt", "b.bin", "empty", "with: colon")
	if code != 0 || errOut != "" {
		t.Fatalf("sum = %d, %q", code, errOut)
	}
	if err := os.WriteFile("SUMS", []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "a.txt: OK\nb.bin: OK\nempty: OK\nwith: colon: OK\n"
	for _, args := range [][]string{{"sum", "-c", "SUMS"}, {"sum", "--check", "SUMS"}} {
		if code, out, errOut := runSumWith(t, "", args...); code != 0 || out != want || errOut != "" {
			t.Errorf("hdig %q = %d, %q, %q; want 0, %q", args, code, out, errOut, want)
		}
	}
	// The list on standard input.
	if code, out, errOut := runSumWith(t, list, "sum", "-c"); code != 0 || out != want || errOut != "" {
		t.Errorf("sum -c < SUMS = %d, %q, %q; want 0, %q", code, out, errOut, want)
	}
	if code, out, errOut := runSumWith(t, "", "sum", "-c", "--quiet", "SUMS"); code != 0 || out != "" || errOut != "" {
		t.Errorf("sum -c --quiet = %d, %q, %q; want 0 and silence", code, out, errOut)
	}
}

func TestSumCheckTampered(t *testing.T) {
	writeFiles(t, map[string]string{"a": sumHelloNoLF, "b": "b"})
	_, list, _ := runSumWith(t, "", "sum", "-a", "sha-256,md5", "a", "b")
	if err := os.WriteFile("SUMS", []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("a", []byte(sumHelloNoLF+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runSumWith(t, "", "sum", "-c", "SUMS")
	wantOut := "a: FAILED (sha-256: want X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=, got RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=; " +
		"md5: want Sd/dVLAcvNLSq16eXua5uQ==, got UFIauregE76D7gDe0/n0JA==)\nb: OK\n"
	if code != ExitIntegrity || out != wantOut {
		t.Errorf("sum -c = %d, %q; want 1, %q", code, out, wantOut)
	}
	if errOut != "hdig: WARNING: 1 file did NOT match\n" {
		t.Errorf("stderr = %q, want the mismatch summary", errOut)
	}
	// --status: nothing printed, the exit status tells.
	if code, out, errOut := runSumWith(t, "", "sum", "-c", "--status", "SUMS"); code != ExitIntegrity || out != "" || errOut != "" {
		t.Errorf("sum -c --status = %d, %q, %q; want 1 and silence", code, out, errOut)
	}
}

func TestSumCheckProblems(t *testing.T) {
	tests := []struct {
		name    string
		list    string
		args    []string
		code    int
		out     string
		errWant []string
	}{
		{"missing file", "a: " + sumHelloSHA256 + "\nnosuch: " + sumHelloSHA256 + "\n", nil,
			2, "a: OK\nnosuch: FAILED open or read\n",
			[]string{"hdig: open nosuch: no such file or directory", "WARNING: 1 listed file could not be read"}},
		{"missing file ignored", "a: " + sumHelloSHA256 + "\nnosuch: " + sumHelloSHA256 + "\n", []string{"--ignore-missing"},
			0, "a: OK\n", nil},
		{"only missing files, ignored", "nosuch: " + sumHelloSHA256 + "\n", []string{"--ignore-missing"},
			2, "", []string{"no file was verified"}},
		{"comments, blank lines and CRLF", "# made by hdig sum\n\n   \r\na: " + sumHelloSHA256 + "\r\n", nil,
			0, "a: OK\n", nil},
		{"malformed lines with numbers", "a: " + sumHelloSHA256 + "\njunk\n" + sumHelloSHA256 + "\nb: sha-256=abc\nc: SHA-256=:AA==:\nd: sha-3=:AA==:\n: " + sumHelloSHA256 + "\n", nil,
			2, "a: OK\n",
			[]string{
				`SUMS: line 2: want "FILE: FIELD-VALUE"`,
				`SUMS: line 3: want "FILE: FIELD-VALUE"`,
				`SUMS: line 4: bad field value "sha-256=abc": member "sha-256" is a token, want a byte sequence`,
				"SUMS: line 5: bad field value",
				`SUMS: line 6: no supported digest algorithm in "sha-3=:AA==:"`,
				"SUMS: line 7: empty file name",
				"WARNING: 6 lines are improperly formatted",
			}},
		{"mismatch wins over malformed", "a: " + sumEmptySHA256 + "\njunk\n", nil,
			1, "a: FAILED (sha-256: want 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=, got X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=)\n",
			[]string{"line 2", "1 line is improperly formatted", "1 file did NOT match"}},
		{"wrong-length value", "a: sha-256=:AAAA:\n", nil,
			1, "a: FAILED (sha-256: value is 3 bytes, want 32 for sha-256)\n", nil},
		{"unknown member beside a known one", "a: sha-3=:AAAA:, " + sumHelloSHA256 + "\n", nil,
			0, "a: OK\n", nil},
		{"deprecated algorithms count", "a: unixsum=:GQU=:, crc32c=:AAAAAA==:\n", nil,
			1, "a: FAILED (crc32c: want AAAAAA==, got Q3lHIA==)\n", nil},
		{"no lines", "# nothing\n", nil,
			2, "", []string{"SUMS: no properly formatted lines found"}},
		{"stdin named in a list read from stdin", "-: " + sumHelloSHA256 + "\n", []string{"-"},
			2, "", []string{"standard input: line 1: cannot check standard input (-)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeFiles(t, map[string]string{"a": sumHelloNoLF, "SUMS": tt.list})
			args := append([]string{"sum", "-c"}, tt.args...)
			stdin := ""
			if len(tt.args) > 0 && tt.args[len(tt.args)-1] == "-" {
				stdin = tt.list
			} else {
				args = append(args, "SUMS")
			}
			code, out, errOut := runSumWith(t, stdin, args...)
			if code != tt.code || out != tt.out {
				t.Errorf("hdig %q = %d, stdout %q; want %d, %q (stderr %q)", args, code, out, tt.code, tt.out, errOut)
			}
			if tt.errWant == nil && tt.code != 1 && errOut != "" {
				t.Errorf("stderr = %q, want nothing", errOut)
			}
			for _, w := range tt.errWant {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr = %q, want it to contain %q", errOut, w)
				}
			}
		})
	}
}

func TestSumCheckUnreadableList(t *testing.T) {
	writeFiles(t, map[string]string{"a": sumHelloNoLF, "SUMS": "a: " + sumHelloSHA256 + "\n"})
	code, out, errOut := runSumWith(t, "", "sum", "-c", "nosuch", "SUMS")
	if code != ExitUsage || out != "a: OK\n" || !strings.Contains(errOut, "open nosuch: no such file or directory") {
		t.Errorf("sum -c nosuch SUMS = %d, %q, %q; want 2, the good list checked, the error named", code, out, errOut)
	}
	// A list that cannot be read is named once, and counted as a list,
	// not as a listed file.
	if err := os.Mkdir("DIR", 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runSumWith(t, "", "sum", "-c", "DIR")
	if code != ExitUsage || strings.Count(errOut, "DIR") != 1 || !strings.Contains(errOut, "1 list could not be read") || strings.Contains(errOut, "listed file") {
		t.Errorf("sum -c DIR = %d, %q; want 2, DIR named once, one list unread", code, errOut)
	}
	if err := os.WriteFile("LONG", []byte(strings.Repeat("x", maxCheckLine+1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runSumWith(t, "", "sum", "-c", "LONG")
	if code != ExitUsage || !strings.Contains(errOut, "LONG: line 1: longer than") {
		t.Errorf("sum -c LONG = %d, %q; want 2 and the line named", code, errOut)
	}
}

// File names with a backslash or newline are escaped as coreutils does, and
// the escape is undone by -c.
func TestSumEscapedNames(t *testing.T) {
	names := []string{`back\slash`, "new\nline", "plain"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = n
	}
	writeFiles(t, files)
	code, list, errOut := runSumWith(t, "", append([]string{"sum"}, names...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("sum = %d, %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `\back\\slash: sha-256=:`) || !strings.HasPrefix(lines[1], `\new\nline: sha-256=:`) || !strings.HasPrefix(lines[2], "plain: ") {
		t.Fatalf("sum printed %q, want escaped names", lines)
	}
	code, out, errOut := runSumWith(t, list, "sum", "-c")
	if want := "\\back\\\\slash: OK\n\\new\\nline: OK\nplain: OK\n"; code != 0 || out != want || errOut != "" {
		t.Errorf("sum -c = %d, %q, %q; want 0, %q", code, out, errOut, want)
	}
	for _, bad := range []string{`\a\x: ` + sumHelloSHA256, `\a\: ` + sumHelloSHA256} {
		code, _, errOut := runSumWith(t, bad+"\n", "sum", "-c")
		if code != ExitUsage || !strings.Contains(errOut, "line 1:") {
			t.Errorf("sum -c with %q = %d, %q; want 2 and the line named", bad, code, errOut)
		}
	}
}

func TestSumInterrupted(t *testing.T) {
	writeFiles(t, map[string]string{"a": sumHelloNoLF})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ios, _, out, errOut := Test()
	if code := Run(ctx, ios, []string{"sum", "a"}); code != ExitInterrupted || out.Len() != 0 {
		t.Errorf("interrupted sum = %d, %q, %q; want 130 and no output", code, out, errOut)
	}
}

func TestSumBigFileAllAlgorithms(t *testing.T) {
	// Bigger than the read buffer, so the Hasher runs concurrently.
	data := strings.Repeat("0123456789abcdef", (3*sumBufSize+100)/16)
	writeFiles(t, map[string]string{"big": data})
	code, list, errOut := runSumWith(t, "", "sum", "-a", "sha-512,sha-256,md5,sha,unixsum,unixcksum,adler,crc32c", "big")
	if code != 0 || errOut != "" {
		t.Fatalf("sum = %d, %q", code, errOut)
	}
	// The same bytes through stdin give the same value.
	code, value, _ := runSumWith(t, data, "sum", "-a", "sha-512,sha-256,md5,sha,unixsum,unixcksum,adler,crc32c")
	if code != 0 || "big: "+value != list {
		t.Errorf("stdin gave %q, file gave %q", value, list)
	}
	if code, out, _ := runSumWith(t, list, "sum", "-c"); code != 0 || out != "big: OK\n" {
		t.Errorf("sum -c = %d, %q", code, out)
	}
}

// TestSumCheckCoreutilsLines: sum -c reads what sha256sum, sha256sum --tag
// and hdig sum --format hex write, as hdig get --checksum-file does (one
// parser of those lines, verify.ParseChecksumLine).
func TestSumCheckCoreutilsLines(t *testing.T) {
	sum := sha256.Sum256([]byte(sumHelloNoLF))
	h := hex.EncodeToString(sum[:])
	list := h + "  a\n" + "SHA256 (a) = " + h + "\n" + strings.Repeat("0", 64) + " *a\n"
	writeFiles(t, map[string]string{"a": sumHelloNoLF, "SUMS": list})
	code, out, errOut := runSumWith(t, "", "sum", "-c", "SUMS")
	if code != ExitIntegrity || !strings.HasPrefix(out, "a: OK\na: OK\na: FAILED (sha-256: want ") || strings.Contains(errOut, "improperly") {
		t.Errorf("sum -c of coreutils lines = %d, %q, %q; want 1, two OK, the third FAILED", code, out, errOut)
	}
}

// A sha256sum line whose file name contains ": sha-256=:…:" is read as
// sha256sum -c reads it, as --checksum-file does (coreutils' format first),
// not as hdig sum's line for another file ("HEX  x"): that read checked a
// file the list does not name, and passed while the named one differs.
func TestSumCheckCoreutilsNameLikeField(t *testing.T) {
	content := "other"
	other := sha256.Sum256([]byte(content))
	for i := 0; strings.Contains(base64.StdEncoding.EncodeToString(other[:]), "/"); i++ { // a file name
		content = fmt.Sprint("other", i)
		other = sha256.Sum256([]byte(content))
	}
	named := "x: sha-256=:" + base64.StdEncoding.EncodeToString(other[:]) + ":"
	h := hex.EncodeToString(other[:]) // the listed file's digest, which its bytes do not have
	writeFiles(t, map[string]string{
		named:     sumHelloNoLF,
		h + "  x": content, // what hdig sum's reading of the line would check
		"SUMS":    h + "  " + named + "\n",
	})
	code, out, errOut := runSumWith(t, "", "sum", "-c", "SUMS")
	if code != ExitIntegrity || !strings.HasPrefix(out, named+": FAILED (sha-256: want ") {
		t.Errorf("sum -c = %d, %q, %q; want 1, %q FAILED", code, out, errOut, named)
	}
}

// Every line sum prints is read back by -c as the line of the file it
// names: a name starting with '#' was printed as a comment line, which -c
// skips (the file went unchecked under exit 0), and a name starting with
// hex and two spaces ("HEX  x") as sha256sum's line for another file
// ("x: sha-256=:…:"), which -c checked instead. Tampered afterwards, each
// listed file must fail -c.
func TestSumListReadBackAsPrinted(t *testing.T) {
	tampered := "tampered"
	content := "listed"
	v := sha256.Sum256([]byte(content))
	for i := 0; strings.Contains(base64.StdEncoding.EncodeToString(v[:]), "/"); i++ { // a file name
		content = fmt.Sprint("listed", i)
		v = sha256.Sum256([]byte(content))
	}
	decoy := sha256.Sum256([]byte("decoy"))
	hexNamed := hex.EncodeToString(decoy[:]) + "  x"
	other := "x: sha-256=:" + base64.StdEncoding.EncodeToString(v[:]) + ":" // how sha256sum's reading names it
	for _, name := range []string{"#hash", hexNamed, "SHA256 (x) = " + hex.EncodeToString(decoy[:])} {
		t.Run(name, func(t *testing.T) {
			writeFiles(t, map[string]string{name: content, "plain": "plain", other: "decoy"})
			code, list, errOut := runSumWith(t, "", "sum", name, "plain")
			if code != 0 || errOut != "" {
				t.Fatalf("sum = %d, %q", code, errOut)
			}
			if code, out, errOut := runSumWith(t, list, "sum", "-c"); code != 0 || strings.Count(out, ": OK\n") != 2 {
				t.Fatalf("sum -c of its own list %q = %d, %q, %q; want 0 and two OK", list, code, out, errOut)
			}
			if err := os.WriteFile(name, []byte(tampered), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, out, errOut := runSumWith(t, list, "sum", "-c"); code != ExitIntegrity || !strings.Contains(out, "FAILED (sha-256") {
				t.Errorf("sum -c of %q after %q changed = %d, %q, %q; want 1 and FAILED", list, name, code, out, errOut)
			}
		})
	}
}
