package cmd

import (
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"

	"github.com/hdig/hdig/fetch"
)

// formPart is one -F argument: NAME=VALUE, NAME=@FILE (a file upload) or
// NAME=<FILE (a value read from FILE), with ;type= and ;filename=.
type formPart struct {
	name, value, file, ctype, filename string
	upload                             bool
}

func parseFormPart(arg string) (formPart, error) {
	name, rest, ok := strings.Cut(arg, "=")
	if !ok || name == "" {
		return formPart{}, usageErrorf("-F %q: want NAME=VALUE, NAME=@FILE or NAME=<FILE", arg)
	}
	p := formPart{name: name}
	if rest != "" && (rest[0] == '@' || rest[0] == '<') {
		p.upload = rest[0] == '@'
		fields := strings.Split(rest[1:], ";")
		p.file = fields[0]
		for _, kv := range fields[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch strings.TrimSpace(k) {
			case "type":
				p.ctype = v
			case "filename":
				p.filename = v
			default:
				return formPart{}, usageErrorf("-F %q: unknown parameter %q (want type= or filename=)", arg, k)
			}
		}
		if p.file == "" {
			return formPart{}, usageErrorf("-F %q: no file name after %c", arg, rest[0])
		}
		return p, nil
	}
	if v, t, ok := strings.Cut(rest, ";type="); ok {
		rest, p.ctype = v, t
	}
	p.value = rest
	return p, nil
}

// formBody is -F's multipart/form-data body and its Content-Type. The body
// is read once here (spooled to a temporary file past 1 MiB) so that hdig
// can send its Content-Digest.
func formBody(args []string, stdin io.Reader) (*fetch.Body, string, error) {
	parts := make([]formPart, 0, len(args))
	for _, a := range args {
		p, err := parseFormPart(a)
		if err != nil {
			return nil, "", err
		}
		if p.file != "" && p.file != "-" {
			if _, err := os.Stat(p.file); err != nil {
				return nil, "", usageErrorf("-F %s: %v", a, err)
			}
		}
		parts = append(parts, p)
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() { pw.CloseWithError(writeForm(mw, parts, stdin)) }()
	body, err := fetch.ReaderBody(pr, "")
	pr.Close()
	if err != nil {
		return nil, "", withExit(ExitUsage, fmt.Errorf("-F: %w", err))
	}
	return body, mw.FormDataContentType(), nil
}

func writeForm(mw *multipart.Writer, parts []formPart, stdin io.Reader) error {
	for _, p := range parts {
		if err := writeFormPart(mw, p, stdin); err != nil {
			return err
		}
	}
	return mw.Close()
}

func writeFormPart(mw *multipart.Writer, p formPart, stdin io.Reader) error {
	h := textproto.MIMEHeader{}
	disp := fmt.Sprintf(`form-data; name="%s"`, quoteForm(p.name))
	if p.upload {
		fn := p.filename
		if fn == "" && p.file != "-" {
			fn = filepath.Base(p.file)
		}
		disp += fmt.Sprintf(`; filename="%s"`, quoteForm(fn))
		if p.ctype == "" {
			p.ctype = "application/octet-stream"
		}
	}
	h.Set("Content-Disposition", disp)
	if p.ctype != "" {
		h.Set("Content-Type", p.ctype)
	}
	w, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	if p.file == "" {
		_, err = io.WriteString(w, p.value)
		return err
	}
	var r io.Reader = stdin
	if p.file != "-" {
		f, err := os.Open(p.file)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	_, err = io.Copy(w, r)
	return err
}

// quoteForm escapes a name or file name for a Content-Disposition quoted
// string as curl does (\" and \\), dropping line breaks.
func quoteForm(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r", "", "\n", "").Replace(s)
}
