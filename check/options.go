package check

import (
	"io"
	"net/http"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/verify"
)

// Defaults of the options.
const (
	// DefaultMaxBody caps the bytes of each body that is read and hashed;
	// beyond it the body-based checks are skipped.
	DefaultMaxBody = 256 << 20
	// DefaultTimeout bounds connecting, waiting for a response header and
	// any stall while reading a body.
	DefaultTimeout = 30 * time.Second
	// DefaultParallel is how many URLs are audited at once.
	DefaultParallel = 4
	// DefaultWant is the Want-Repr-Digest and Want-Content-Digest sent.
	DefaultWant = "sha-256=10, sha-512=5"
	// DefaultIM is the A-IM sent for delta.226: the delta codings the patch
	// package decodes.
	DefaultIM = "vcdiff, gdiff;q=0.8, diffe;q=0.5"
	// EncodingsAsked is the Accept-Encoding of encoding.repr-digest.
	EncodingsAsked = "gzip, br, zstd, deflate"
	// rangeSpan is the most bytes range.partial asks for.
	rangeSpan = 64 << 10
)

// Base is a version of a representation used as the source of a delta:
// a file given with --base, or a version from hdig's cache.
type Base interface {
	io.ReaderAt
	Size() int64
	Close() error
}

// BaseFunc returns the bytes of the version of url whose entity tag is
// etag. It returns nil, nil when it has none: delta.226 then checks the 226
// without rebuilding the representation.
type BaseFunc func(url, etag string) (Base, error)

// Options configure an audit.
type Options struct {
	// Client sends the requests. Its transport must not decompress
	// transparently: the digests cover the encoded bytes. Nil means a
	// client like fetch.NewClient's.
	Client *http.Client
	// Header is added to every request (-H).
	Header http.Header
	// Omit names fields no request carries unless the probe itself sends
	// them (-H 'Name:'): net/http's own User-Agent among them.
	Omit []string
	// Want is sent as Want-Repr-Digest and Want-Content-Digest
	// (default DefaultWant).
	Want []verify.Pref
	// Accept lists the algorithms that pass repr-digest.algorithm; a
	// deprecated algorithm passes only when named here (default sha-256,
	// sha-512).
	Accept []string
	// BaseETag asks delta.226 for a delta from that version (with quotes,
	// as the origin sent it).
	BaseETag string
	// Base opens the bytes of the base version; nil: no rebuilding.
	Base BaseFunc
	// IM is the A-IM field value of the delta request (default DefaultIM).
	IM string
	// MaxBody caps each body read (default DefaultMaxBody).
	MaxBody int64
	// Timeout bounds connecting, waiting for a response and stalls while
	// reading (default DefaultTimeout).
	Timeout time.Duration
	// MaxTime bounds the whole audit of each URL (0: no bound). When it
	// runs out, the request under way breaks off, and every check decided
	// after that which does not pass or fail on what it saw fails, naming
	// it (MaxTimeError): a report cut short never passes by skipping.
	MaxTime time.Duration
	// Zsync checks URL.zsync when the origin advertises no control file.
	Zsync bool
	// Trust, when set, verifies the full GET's signatures (signature.*;
	// signature.go) with these keys; nil decides signature.present only.
	Trust *fetch.Trust
	// Parallel bounds how many URLs are audited at once (default
	// DefaultParallel).
	Parallel int
	// Origin is the Origin of the cors.expose request (default
	// DefaultOrigin).
	Origin string
}

// withDefaults returns a copy of o with every zero field set.
func (o Options) withDefaults() Options {
	if o.Client == nil {
		o.Client = &http.Client{
			Transport: &http.Transport{DisableCompression: true, Proxy: fetch.ProxyFromEnvironment},
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	if o.Header == nil {
		o.Header = http.Header{}
	}
	if len(o.Want) == 0 {
		o.Want, _ = verify.ParseWant(DefaultWant)
	}
	if len(o.Accept) == 0 {
		o.Accept = verify.DefaultPolicy().Accept
	}
	if o.IM == "" {
		o.IM = DefaultIM
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Origin == "" {
		o.Origin = DefaultOrigin
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	return o
}
