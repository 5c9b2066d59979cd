package cmd

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// writeOut is what -w's variables are made of, for one transfer.
type writeOut struct {
	res       *fetch.Result
	err       error
	url       string
	filename  string
	total     time.Duration
	redirects int
	exit      int
	verdict   string
}

// writeOutVars are -w's %{name} variables: curl's common ones and hdig's.
var writeOutVars = map[string]func(w *writeOut) string{
	"http_code":          func(w *writeOut) string { return fmt.Sprintf("%03d", w.status()) },
	"response_code":      func(w *writeOut) string { return fmt.Sprintf("%03d", w.status()) },
	"size_download":      func(w *writeOut) string { return fmt.Sprint(w.received()) },
	"bytes_received":     func(w *writeOut) string { return fmt.Sprint(w.received()) },
	"url_effective":      func(w *writeOut) string { return w.effective() },
	"content_type":       func(w *writeOut) string { return w.header("Content-Type") },
	"time_total":         func(w *writeOut) string { return fmt.Sprintf("%.6f", w.total.Seconds()) },
	"filename_effective": func(w *writeOut) string { return w.filename },
	"num_redirects":      func(w *writeOut) string { return fmt.Sprint(w.redirects) },
	"exitcode":           func(w *writeOut) string { return fmt.Sprint(w.exit) },
	"errormsg":           func(w *writeOut) string { return w.errormsg() },
	"verdict":            func(w *writeOut) string { return w.verdict },
	"repr_digest":        func(w *writeOut) string { return w.reprDigest() },
	"strategy":           func(w *writeOut) string { return w.strategy() },
}

func (w *writeOut) status() int {
	if w.res == nil {
		return 0
	}
	return w.res.Status
}

func (w *writeOut) received() int64 {
	if w.res == nil {
		return 0
	}
	return w.res.Received
}

func (w *writeOut) effective() string {
	if w.res != nil && w.res.URL != "" {
		return w.res.URL
	}
	return httpfield.Redact(w.url)
}

func (w *writeOut) header(name string) string {
	if w.res == nil || w.res.Header == nil {
		return ""
	}
	return strings.Join(w.res.Header.Values(name), ", ")
}

func (w *writeOut) errormsg() string {
	if w.err == nil || w.exit == ExitOK {
		return ""
	}
	return strings.ReplaceAll(w.err.Error(), "\n", " ")
}

func (w *writeOut) strategy() string {
	if w.res == nil {
		return ""
	}
	return w.res.Strategy
}

// reprDigest is the Repr-Digest that verified the representation, as a
// field value ("sha-256=:…:"), or "".
func (w *writeOut) reprDigest() string {
	if w.res == nil {
		return ""
	}
	var parts []string
	for _, c := range w.res.Verdict.Checks {
		if c.Field == verify.ReprDigest && c.Result == verify.Match {
			parts = append(parts, c.Algorithm+"=:"+verify.Base64(c.Actual)+":")
		}
	}
	return strings.Join(parts, ", ")
}

// readWriteOut is -w's FORMAT: itself, or @FILE's text (@- reads stdin).
func readWriteOut(arg string, stdin io.Reader) (string, error) {
	name, ok := strings.CutPrefix(arg, "@")
	if !ok {
		return arg, checkWriteOut(arg)
	}
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, 64<<10))
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", usageErrorf("-w %s: %v", arg, err)
	}
	return string(b), checkWriteOut(string(b))
}

// checkWriteOut refuses a format naming a variable -w does not know.
func checkWriteOut(format string) error {
	_, err := expandWriteOut(format, &writeOut{}, io.Discard, io.Discard)
	return err
}

// expandWriteOut writes format with its variables and escapes expanded to
// out (%{stderr} switches to errOut, %{stdout} back).
func expandWriteOut(format string, w *writeOut, out, errOut io.Writer) (int, error) {
	var b strings.Builder
	dst, n := out, 0
	flush := func() {
		m, _ := io.WriteString(dst, b.String())
		n += m
		b.Reset()
	}
	for i := 0; i < len(format); i++ {
		ch := format[i]
		switch {
		case ch == '\\' && i+1 < len(format):
			i++
			switch format[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '\\':
				b.WriteByte('\\')
			default:
				b.WriteByte('\\')
				b.WriteByte(format[i])
			}
		case ch == '%' && strings.HasPrefix(format[i:], "%%"):
			b.WriteByte('%')
			i++
		case ch == '%' && strings.HasPrefix(format[i:], "%{"):
			end := strings.IndexByte(format[i:], '}')
			if end < 0 {
				return n, usageErrorf("-w: unterminated %%{ in %q", format)
			}
			name := format[i+2 : i+end]
			i += end
			switch name {
			case "stdout", "stderr":
				flush()
				dst = out
				if name == "stderr" {
					dst = errOut
				}
				continue
			}
			f, ok := writeOutVars[name]
			if !ok {
				return n, usageErrorf("-w: unknown variable %%{%s}", name)
			}
			b.WriteString(f(w))
		case ch == '%' && strings.HasPrefix(format[i:], "%header{"):
			end := strings.IndexByte(format[i:], '}')
			if end < 0 {
				return n, usageErrorf("-w: unterminated %%header{ in %q", format)
			}
			b.WriteString(w.header(http.CanonicalHeaderKey(format[i+len("%header{") : i+end])))
			i += end
		default:
			b.WriteByte(ch)
		}
	}
	flush()
	return n, nil
}
