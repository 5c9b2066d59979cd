package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"time"
)

// Option configures a Server. Options validate their arguments: New returns
// the first error an option reports.
type Option func(*config) error

// config is what the options set.
type config struct {
	writable       bool
	maxUpload      int64
	logger         *slog.Logger
	accessOut      io.Writer // WithAccessLog; nil: request lines go to logger
	stateDir       string
	compressLimit  int64
	variantMemory  int64
	headerDigestAt int64
	delta          DeltaHandler
	faults         faults
	settle         time.Duration                             // see defaultSettle; tests shorten it
	sleep          func(context.Context, time.Duration) bool // the faults' waits; tests count them
	writeTimeout   time.Duration
	maxConns       int
	cors           *corsPolicy   // WithCORS; nil: no CORS fields
	signer         *signer       // WithSigningKey (sign.go)
	duplicates     []*url.URL    // WithDuplicates
	streamAt       int64         // the smallest file sent before it is hashed (stream.go)
	dictPatterns   []string      // WithDictionary
	dictMaxAge     time.Duration // WithDictionaryMaxAge
}

// Defaults.
const (
	// DefaultMaxUpload bounds a PUT or POST body (--max-upload).
	DefaultMaxUpload = 1 << 30
	// DefaultCompressLimit is the largest file compressed for
	// Content-Encoding negotiation; larger files are served as identity.
	DefaultCompressLimit = 32 << 20
	// DefaultVariantMemory bounds the bytes of encoded variants kept in
	// memory when no state directory is set.
	DefaultVariantMemory = 128 << 20
	// DefaultHeaderDigestLimit is the largest range (or multipart body)
	// whose Content-Digest is sent as a header; above it Content-Digest is
	// computed while streaming and sent as a trailer (RFC 9530 §6.4).
	DefaultHeaderDigestLimit = 64 << 20
	// DefaultWriteTimeout is how long a client may take no response
	// bytes before it is dropped (--write-timeout), as nginx's
	// send_timeout.
	DefaultWriteTimeout = 60 * time.Second
)

func defaultConfig() config {
	return config{
		maxUpload:      DefaultMaxUpload,
		logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		compressLimit:  DefaultCompressLimit,
		variantMemory:  DefaultVariantMemory,
		headerDigestAt: DefaultHeaderDigestLimit,
		faults:         faults{flipAt: -1, truncateAt: -1},
		settle:         defaultSettle,
		sleep:          sleep,
		writeTimeout:   DefaultWriteTimeout,
		streamAt:       defaultStreamAt,
		maxConns:       DefaultMaxConns(),
		dictMaxAge:     DefaultDictionaryMaxAge,
	}
}

// WithSettle sets how old a file's change time must be before digests
// hashed from it are trusted by its ID alone (default 2 s, see
// defaultSettle); a younger file's digests are checked against its bytes
// when they are used. For tests, which make their files just before they
// serve them.
func WithSettle(d time.Duration) Option {
	return func(c *config) error { c.settle = d; return nil }
}

// WithWritable enables PUT (store a file at the target path) and POST to a
// directory (create a new file in it, 201 with Location). Without it, write
// methods get 405 with an Allow header.
func WithWritable() Option {
	return func(c *config) error { c.writable = true; return nil }
}

// WithMaxUpload bounds the request content of PUT and POST (413 above it);
// the bound also applies to the decoded bytes of a gzip request.
func WithMaxUpload(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("max upload must be positive, got %d", n)
		}
		c.maxUpload = n
		return nil
	}
}

// WithLogger sets the access and error log. The default discards.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("nil logger")
		}
		c.logger = l
		return nil
	}
}

// WithStateDir keeps the encoded variants (gzip, br, zstd) on disk in
// dir/variants, named after the sha-256 of the identity bytes, instead of in
// memory, within 1 GiB (the least recently used are removed first). The
// directory is created if missing; it must not be inside the
// served directory unless its name starts with a dot. The zsync control
// files made are kept there too, in dir/zsync, within 1 GiB.
func WithStateDir(dir string) Option {
	return func(c *config) error {
		if dir == "" {
			return fmt.Errorf("empty state directory")
		}
		c.stateDir = dir
		return nil
	}
}

// WithCompressLimit sets the largest file that is compressed for
// Content-Encoding negotiation (0 disables compression).
func WithCompressLimit(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("compress limit must not be negative, got %d", n)
		}
		c.compressLimit = n
		return nil
	}
}

// WithVariantMemory bounds the bytes of encoded variants held in memory
// (least recently used are dropped first). Ignored with WithStateDir.
func WithVariantMemory(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("variant memory must not be negative, got %d", n)
		}
		c.variantMemory = n
		return nil
	}
}

// WithHeaderDigestLimit sets the largest partial content (a single range or
// a multipart/byteranges body) whose Content-Digest is computed before the
// response starts and sent as a header. Larger content is hashed as it is
// sent and its Content-Digest is a trailer (RFC 9530 §6.4).
func WithHeaderDigestLimit(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("header digest limit must not be negative, got %d", n)
		}
		c.headerDigestAt = n
		return nil
	}
}

// WithDelta installs the RFC 3229 delta step: for every GET, once the
// representation is selected (and before conditional requests and ranges
// are evaluated), the handler may answer with 226 IM Used.
func WithDelta(d DeltaHandler) Option {
	return func(c *config) error {
		if d == nil {
			return fmt.Errorf("nil delta handler")
		}
		c.delta = d
		return nil
	}
}

// WithWriteTimeout drops a client that accepts no response bytes for d:
// the connection's write deadline moves forward with every write of at
// most 128 KiB, so slow but steady readers are not cut off. 0 disables it.
func WithWriteTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("write timeout must not be negative, got %v", d)
		}
		c.writeTimeout = d
		return nil
	}
}

// WithMaxConns caps the connections Serve serves at once (0: no cap). A
// new connection beyond the cap closes the longest-idle keep-alive
// connection, or waits for one to end.
func WithMaxConns(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("max connections must not be negative, got %d", n)
		}
		c.maxConns = n
		return nil
	}
}
