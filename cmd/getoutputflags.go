package cmd

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/spf13/pflag"
)

// outputFlags are curl's flags about what a transfer prints and where its
// file goes.
type outputFlags struct {
	Fail             bool
	FailWithBody     bool
	ShowError        bool
	WriteOut         string
	Include          bool
	DumpHeader       string
	CreateDirs       bool
	OutputDir        string
	RemoteTime       bool
	RemoteHeaderName bool

	remoteName string // with -J: -O's name, the file's name without Content-Disposition
}

func (x *outputFlags) add(f *pflag.FlagSet) {
	f.BoolVarP(&x.Fail, "fail", "f", false, "fail on HTTP status >= 400 without writing the body (hdig's default; exit 4)")
	f.BoolVar(&x.FailWithBody, "fail-with-body", false, "on HTTP status >= 400 write the body (up to 1 MiB) to stdout, or to a new -o FILE, and exit 4")
	f.BoolVarP(&x.ShowError, "show-error", "S", false, "with -s, still print errors and failed verdicts")
	f.StringVarP(&x.WriteOut, "write-out", "w", "", "print `FORMAT` on stdout after the transfer: %{http_code}, %{size_download}, %header{name}, \\n… (@FILE reads it)")
	f.BoolVarP(&x.Include, "include", "i", false, "print the response headers on stdout before the body")
	f.StringVarP(&x.DumpHeader, "dump-header", "D", "", "write the response headers to `FILE` (- is stdout)")
	f.BoolVar(&x.CreateDirs, "create-dirs", false, "create the directories of -o FILE and --output-dir")
	f.StringVar(&x.OutputDir, "output-dir", "", "put -o and -O files in `DIR`")
	f.BoolVarP(&x.RemoteTime, "remote-time", "R", false, "give the file the Last-Modified time of the response")
	f.BoolVarP(&x.RemoteHeaderName, "remote-header-name", "J", false, "with -O, name the file after Content-Disposition's filename (no directories, no dotfile, never overwriting)")
}

// place applies --output-dir and --create-dirs to the output name.
func (x *outputFlags) place(output string) (string, error) {
	if output == "" || output == "-" {
		return output, nil
	}
	output = x.within(output)
	if x.CreateDirs {
		if err := os.MkdirAll(filepath.Dir(output), 0o750); err != nil { // as curl
			return "", withExit(ExitUsage, fmt.Errorf("--create-dirs: %w", err))
		}
	}
	return output, nil
}

// within is the file -o names under --output-dir (a relative name is in
// it), without making directories: what place returns but for them.
func (x *outputFlags) within(output string) string {
	if x.OutputDir != "" && output != "" && output != "-" && !filepath.IsAbs(output) {
		return filepath.Join(x.OutputDir, output)
	}
	return output
}

// finish renames a verified file after Content-Disposition (-J) and gives
// it the Last-Modified time (-R). It returns the file's final name. clash
// refuses a name another flag writes (-c, -D).
func (x *outputFlags) finish(ios *IOStreams, output string, res *fetch.Result, clash func(string) error) (string, error) {
	if res == nil || output == "" || res.Unchanged || res.Header == nil {
		return output, nil
	}
	if x.RemoteHeaderName {
		var err error
		if output, err = x.rename(ios, output, res.Header.Get("Content-Disposition"), clash); err != nil {
			return output, err
		}
	}
	if x.RemoteTime {
		remoteTime(ios, output, res.Header.Get("Last-Modified"))
	}
	return output, nil
}

// remoteTime gives output the time lastModified states (-R). A time
// os.Chtimes cannot carry (nanoseconds since 1970 in an int64: years 1678
// to 2262) is not set, with a warning: the year 9999 would wrap to one in
// the past.
func remoteTime(ios *IOStreams, output, lastModified string) {
	t, err := http.ParseTime(lastModified)
	if err != nil {
		return
	}
	if !time.Unix(0, t.UnixNano()).Equal(t) {
		linef(ios.ErrOut, "warning: -R: Last-Modified %s is out of the range of file times: the file keeps its own", t.Format(http.TimeFormat))
		return
	}
	if err := os.Chtimes(output, t, t); err != nil {
		linef(ios.ErrOut, "warning: -R: %v", err)
	}
}

// rename moves -J's download onto Content-Disposition's file name, never
// replacing a file there; without a usable name, onto -O's name (as -O
// alone would have written it). A name clash refuses (a file another flag
// writes, whose text would replace the body) is not written either.
func (x *outputFlags) rename(ios *IOStreams, tmp, disposition string, clash func(string) error) (string, error) {
	name, ok := dispositionName(disposition)
	if !ok && x.remoteName == "" {
		return tmp, withExit(ExitUsage, fmt.Errorf("-J: no file name in Content-Disposition (%q) nor in the URL; the verified bytes are in %s", disposition, tmp))
	}
	if !ok {
		if disposition != "" {
			linef(ios.ErrOut, "warning: -J: Content-Disposition %q has no safe file name; writing %s", disposition, x.remoteName)
		}
		out, err := fetch.ResolveOutput(x.remoteName) // as -O alone: a link followed
		if err != nil || out.Special {
			return tmp, withExit(ExitUsage, fmt.Errorf("-J: %s: not a file to replace (%v); the verified bytes are in %s", x.remoteName, err, tmp))
		}
		if err := clash(out.Path); err != nil {
			return tmp, withExit(ExitUsage, fmt.Errorf("-J: %w (the verified bytes are in %s)", err, tmp))
		}
		if mode, keep := fetch.PartMode(out.Path); keep {
			os.Chmod(tmp, mode) // as fetch.CreatePart: the file replaced keeps its mode
		}
		if err := os.Rename(tmp, out.Path); err != nil {
			return tmp, withExit(ExitUsage, fmt.Errorf("-J: %w (the verified bytes are in %s)", err, tmp))
		}
		return x.remoteName, nil
	}
	target := filepath.Join(filepath.Dir(tmp), name)
	if err := clash(target); err != nil {
		return tmp, withExit(ExitUsage, fmt.Errorf("-J: %w (the verified bytes are in %s)", err, tmp))
	}
	// A hard link never replaces an existing file.
	if err := os.Link(tmp, target); err != nil {
		return tmp, withExit(ExitUsage, fmt.Errorf("-J: refusing to write %s: %w (the verified bytes are in %s)", target, err, tmp))
	}
	os.Remove(tmp)
	return target, nil
}

// dispositionName is the file name Content-Disposition suggests, made safe:
// its last path segment, without unprintable characters; a name that is empty,
// "." or "..", or starts with a dot, or one hdig gives its own files
// (fetch.OwnName) is refused.
func dispositionName(v string) (string, bool) {
	if v == "" {
		return "", false
	}
	_, params, err := mime.ParseMediaType(v)
	if err != nil {
		return "", false
	}
	name := params["filename"]
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(strings.Map(func(r rune) rune {
		if httpfield.Unprintable(r) {
			return -1
		}
		return r
	}, name))
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsRune(name, ':') || fetch.OwnName(name) {
		return "", false
	}
	return name, true
}

// errorBody writes the body of a failed status (--fail-with-body) to
// stdout or to -o FILE when FILE does not exist yet: an existing FILE is
// never replaced by a failed run.
func (x *outputFlags) errorBody(ios *IOStreams, output string, err error, silent bool) {
	var se *fetch.StatusError
	if !x.FailWithBody || !errors.As(err, &se) || len(se.Body) == 0 {
		return
	}
	if output == "" {
		ios.Out.Write(se.Body)
		return
	}
	if x.RemoteHeaderName && x.remoteName != "" {
		output = x.remoteName // not -J's hidden name: no response named a file
	}
	f, ferr := os.OpenFile(output, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if ferr != nil {
		if !silent || x.ShowError { // -s prints no message, -sS those of a failure
			linef(ios.ErrOut, "warning: --fail-with-body: %s not written: %v", output, ferr)
		}
		return
	}
	f.Write(se.Body)
	f.Close()
}

// headerDump prints the responses' headers for -i (stdout, before the
// body) and -D FILE, redirect hops included, curl's way: status line,
// fields, blank line.
type headerDump struct {
	mu    sync.Mutex
	out   io.Writer // -i: stdout
	file  strings.Builder
	dump  bool // -D given
	final bool // a final response that succeeded was seen: pieces' answers are not shown
	hops  int
}

func (h *headerDump) add(r *http.Response, final bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.final {
		return
	}
	// A failed status (408, 429, 5xx) may be retried (--retry): the next
	// attempt's heads follow it, as curl prints them.
	h.final = final && r.StatusCode < 400
	if h.out != nil {
		writeResponseHead(h.out, r)
	}
	if h.dump {
		writeResponseHead(&h.file, r)
	}
}

func (h *headerDump) redirected(r *http.Response, hops int) {
	h.mu.Lock()
	if hops > h.hops {
		h.hops = hops
	}
	h.mu.Unlock()
	h.add(r, false)
}

func (h *headerDump) redirects() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hops
}

// writeResponseHead writes a response's status line and fields as they
// came, each line ending in CRLF, as curl does. HTTP/2 and HTTP/3 have no
// reason phrase, nor a minor version: curl writes "HTTP/2 200 ".
func writeResponseHead(w io.Writer, r *http.Response) {
	if r.ProtoMajor >= 2 {
		fmt.Fprintf(w, "HTTP/%d %d \r\n", r.ProtoMajor, r.StatusCode)
	} else {
		fmt.Fprintf(w, "%s %s\r\n", r.Proto, r.Status)
	}
	var b strings.Builder
	r.Header.Write(&b)
	fmt.Fprintf(w, "%s\r\n", b.String())
}

// startDump empties -D FILE, which each URL's heads are then appended to.
func (x *outputFlags) startDump() error {
	if x.DumpHeader == "" || x.DumpHeader == "-" {
		return nil
	}
	if err := os.WriteFile(x.DumpHeader, nil, 0o644); err != nil {
		return withExit(ExitUsage, fmt.Errorf("-D: %w", err))
	}
	return nil
}

// save appends this transfer's heads to -D FILE.
func (h *headerDump) save(name string) error {
	if name == "" || name == "-" {
		return nil // -D - went to stdout as the headers came
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = io.WriteString(f, h.file.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return withExit(ExitUsage, fmt.Errorf("-D: %w", err))
	}
	return nil
}
