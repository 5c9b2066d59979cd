package fetch

import (
	"bytes"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"

	"github.com/hdig/hdig/verify"
)

// Body is a request body that can be read more than once: once to compute
// its digests, once to send it. It is never held in memory whole unless it
// came from memory.
type Body struct {
	Open  func() (io.ReadCloser, error)
	Size  int64
	close func() error
	// digested is the sha-256 of the bytes the digests were computed
	// over (nil before): a file's bytes are checked against it as they
	// are sent (sameBytes).
	digested []byte
}

// BytesBody is a body held in memory (-d).
func BytesBody(b []byte) *Body {
	return &Body{Size: int64(len(b)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
}

// FileBody is a body read from a file (--data-binary @F, -T F). A file
// that is not a regular file (a FIFO, /dev/stdin, a device) can be read
// once: it is read to its end and spooled (ReaderBody), as stdin is.
func FileBody(path string) (*Body, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	if !st.Mode().IsRegular() {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ReaderBody(f, "")
	}
	b := &Body{Size: st.Size()}
	b.Open = func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if b.digested == nil {
			return f, nil
		}
		h, _ := verify.Lookup(bodyDigestAlgorithm)
		return &sameBytes{ReadCloser: f, name: path, h: h.New(), left: b.Size, want: b.digested}, nil
	}
	return b, nil
}

// sameBytes reads a file body as it is sent, hashing it: a file rewritten
// since its digests were computed would go with digests that are not its
// own. The read that would hand over the last byte fails instead when the
// bytes are not those digested, so the origin never gets a whole body.
type sameBytes struct {
	io.ReadCloser
	name string
	h    hash.Hash
	left int64
	want []byte
}

func (s *sameBytes) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return s.ReadCloser.Read(p)
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.ReadCloser.Read(p)
	s.h.Write(p[:n])
	s.left -= int64(n)
	if s.left == 0 && !bytes.Equal(s.h.Sum(nil), s.want) {
		return 0, &inputError{fmt.Errorf("request body: %s changed while it was sent: its bytes are not those its Content-Digest names", s.name)}
	}
	return n, err
}

// bodyDigestAlgorithm is the algorithm of the digests sent with a body.
const bodyDigestAlgorithm = "sha-256"

// digests computes the body's digests with algs in one streaming pass.
func (b *Body) digests(algs []verify.Algorithm) ([]verify.Digest, error) {
	r, err := b.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sums, n, err := verify.Sum(r, algs)
	if err != nil {
		return nil, err
	}
	if n != b.Size {
		return nil, fmt.Errorf("request body changed while reading: %d bytes, want %d", n, b.Size)
	}
	for _, d := range sums {
		if d.Algorithm == bodyDigestAlgorithm {
			b.digested = d.Value
		}
	}
	return sums, nil
}

// spoolInMemory is how much of a body read from a stream stays in memory;
// the rest goes to a temporary file.
const spoolInMemory = 1 << 20

// ReaderBody reads r to its end (stdin for -T - and --data-binary @-) so
// that it can be hashed and then sent, and retried: up to 1 MiB in memory,
// beyond that in a temporary file, removed at once, that Close releases.
func ReaderBody(r io.Reader, dir string) (*Body, error) {
	var mem bytes.Buffer
	_, err := io.CopyN(&mem, r, spoolInMemory+1)
	if err == io.EOF {
		return BytesBody(mem.Bytes()), nil
	}
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "hdig-body-*")
	if err != nil {
		return nil, fmt.Errorf("spool the request body: %w", err)
	}
	os.Remove(f.Name()) // the open file stays readable; nothing is left behind
	size, err := io.Copy(f, io.MultiReader(&mem, r))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("spool the request body: %w", err)
	}
	return &Body{Size: size, close: f.Close, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.NewSectionReader(f, 0, size)), nil
	}}, nil
}

// Close releases what the body holds (a spool file); it may be called on
// any body, once.
func (b *Body) Close() error {
	if b == nil || b.close == nil {
		return nil
	}
	return b.close()
}

// digestBody computes the digests of the request body once: sha-256 is
// sent as Content-Digest and Repr-Digest (unless the caller set them;
// Repr-Digest not with a part, sendsPart),
// and the digests of every algorithm hdig computes (verify.All) are kept in
// req.sent for the Repr-Digest of a response about the stored resource,
// whichever algorithm it names: the body is read once, so this costs CPU,
// not a second read.
func (req *Request) digestBody() error {
	if req.Body == nil || req.sent != nil {
		return nil
	}
	sums, err := req.Body.digests(verify.All)
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	req.sent = sums
	if req.Header == nil {
		req.Header = http.Header{}
	}
	for _, d := range sums {
		if d.Algorithm != bodyDigestAlgorithm {
			continue
		}
		v := verify.FormatDigests([]verify.Digest{d})
		fields := []string{verify.ContentDigest, verify.ReprDigest}
		if sendsPart(req.Header) {
			fields = fields[:1] // Repr-Digest would be of the whole
		}
		for _, f := range fields {
			if !given(req.Header, f) { // the user's -H field, empty or not, goes as given
				req.Header.Set(f, v)
			}
		}
	}
	return nil
}

// dropBodyDigests removes, from a redirect that carries no content (a 303,
// or a 301/302 to a POST, which net/http turns into a GET), the digests of
// the body the first request carried (digestBody's Content-Digest and
// Repr-Digest): they would claim content the request has not, and tell the
// redirect's target, another origin maybe, the hash of what was posted.
// net/http drops Content-Type and the like itself; a 307 or 308 sends the
// body again, and its digests with it.
func dropBodyDigests(req *http.Request, via []*http.Request) {
	first := via[0].Body
	if (req.Body != nil && req.Body != http.NoBody) || first == nil || first == http.NoBody {
		return
	}
	req.Header.Del(verify.ContentDigest)
	req.Header.Del(verify.ReprDigest)
}

// bodyFields are the fields about a request's content that net/http drops
// with it on a redirect (the Fetch standard's request-body-header names).
var bodyFields = []string{"Content-Type", "Content-Encoding", "Content-Language", "Content-Location"}

// redirectBody decides what a redirect's next request keeps of the first
// request's method and body. RFC 9110 §15.4 lets a client turn the request
// into a GET without content after a 303, and after a 301 or 302 to a POST
// only; net/http turns every method but GET and HEAD into a GET after a 301
// or 302 (a PUT, a PATCH, a DELETE), and once a hop has dropped the body
// it sends none after a 307 either. Where the method may not change, it is
// kept, as curl keeps it, and the body is sent again with its fields and
// digests; where it changed, the digests go too (dropBodyDigests).
func redirectBody(req *http.Request, via []*http.Request) error {
	prev, first := via[len(via)-1], via[0]
	if req.Response == nil || methodChanges(req.Response.StatusCode, prev.Method) {
		dropBodyDigests(req, via)
		return nil
	}
	req.Method = prev.Method
	if prev.Method != first.Method || first.GetBody == nil || (req.Body != nil && req.Body != http.NoBody) {
		return nil
	}
	req.Body, req.ContentLength, req.GetBody = http.NoBody, first.ContentLength, first.GetBody
	if first.ContentLength != 0 {
		body, err := first.GetBody()
		if err != nil {
			return err
		}
		req.Body = body
	}
	for _, k := range bodyFields {
		if vs := first.Header.Values(k); len(vs) > 0 && req.Header.Get(k) == "" {
			req.Header[k] = vs
		}
	}
	return nil
}

// cleartextBody refuses a redirect hop that would send over http the
// request body given for an https URL (a 307 or 308, a 301 or 302 to a
// PUT): the credentials stay behind at such a hop (another origin), and
// the body, a form's password or a private file, must not go where anyone
// on the path reads it. curl sends it; a browser's fetch() refuses the
// request (mixed content). A hop that drops the body is not refused.
func cleartextBody(req *http.Request, via []*http.Request) error {
	if req.Body == nil || req.Body == http.NoBody || via[0].URL.Scheme != "https" || req.URL.Scheme != "http" {
		return nil
	}
	return fmt.Errorf("redirected to %s: not sending the request body, given for https, in cleartext", req.URL.Redacted())
}

// methodChanges says a redirect with this status turns a request of this
// method into a GET without content (RFC 9110 §15.4.2, §15.4.3, §15.4.4).
func methodChanges(status int, method string) bool {
	switch status {
	case http.StatusSeeOther:
		return method != http.MethodHead
	case http.StatusMovedPermanently, http.StatusFound:
		return method == http.MethodPost
	}
	return false
}

// sendsPart says a request's content is a part of the representation
// (Content-Range, RFC 9110 §14.5): Content-Digest covers it, Repr-Digest
// would cover the whole, which the client has not got.
func sendsPart(h http.Header) bool {
	_, ok := h["Content-Range"]
	return ok
}
