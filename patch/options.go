package patch

import "math"

// Defaults for the limits and sizes an Option can change.
const (
	DefaultMaxWindow  = 64 << 20  // largest target window hdig's decoder accepts (xdelta3 -d refuses windows over 16 MiB)
	DefaultWindowSize = 16 << 20  // target window the vcdiff encoder writes (the largest xdelta3 -d accepts)
	DefaultCacheSize  = 64 << 20  // bytes of base kept in the block cache
	DefaultMaxText    = 64 << 20  // largest diffe script or text input
	DefaultIndexSize  = 1 << 24   // source index entries (4 bytes each) of the encoder
	maxSegmentSpan    = 1 << 30   // largest source segment one encoded window names
	maxHeaderSection  = 1 << 20   // largest application header or code table accepted
	maxVarint32       = 1<<31 - 1 // bound of every VCDIFF size and address
)

// config holds the settings the Options change.
type config struct {
	maxWindow  int
	windowSize int
	cacheSize  int
	maxText    int
	indexSize  int
	maxOutput  int64
	checksum   bool
	level      int
	history    int
	work       *decodeWork
}

// decodeWork is what a vcdiff decode did, counted so that tests bound the
// cost of hostile deltas by work done rather than by time taken.
type decodeWork struct {
	histMoved    int64 // bytes copied into the history
	cacheCleared int64 // address cache slots reset between windows
	cacheCopies  int64 // addresses decoded into the cache
}

// withWork makes DecodeVCDIFF report its work in w.
func withWork(w *decodeWork) Option { return func(c *config) { c.work = w } }

// An Option changes a limit or a choice of the encoders and decoders.
type Option func(*config)

// WithMaxWindow bounds the target window a decoder accepts (default 64 MiB).
func WithMaxWindow(n int) Option { return func(c *config) { c.maxWindow = n } }

// WithWindowSize sets the target window of the vcdiff encoder (default 16
// MiB, the largest xdelta3 -d accepts: fewer windows than xdelta3's 8 MiB
// mean fewer window headers and first copies with no address cache).
func WithWindowSize(n int) Option { return func(c *config) { c.windowSize = n } }

// WithCacheSize sets how many bytes of the base the block cache keeps
// (default 64 MiB). Bases up to this size are read once; the encoders read
// a larger base through a quarter of it.
func WithCacheSize(n int) Option { return func(c *config) { c.cacheSize = n } }

// WithMaxText bounds the text diffe reads into memory (default 64 MiB).
func WithMaxText(n int) Option { return func(c *config) { c.maxText = n } }

// WithIndexSize bounds the entries of the encoder's source index (default
// 2^24, 64 MiB). Larger bases are sampled more sparsely.
func WithIndexSize(n int) Option { return func(c *config) { c.indexSize = n } }

// WithMaxOutput makes a decoder fail once it would write more than n bytes
// (default 0: no limit).
func WithMaxOutput(n int64) Option { return func(c *config) { c.maxOutput = n } }

// WithChecksum makes the vcdiff encoder add xdelta3's Adler-32 checksum to
// every window (VCD_ADLER32). It is off by default: plain RFC 3284.
func WithChecksum(on bool) Option { return func(c *config) { c.checksum = on } }

// WithHistory sets how many bytes of already decoded target the vcdiff
// decoder keeps for VCD_TARGET windows (default 8 MiB; neither xdelta3 nor
// open-vcdiff writes such windows).
func WithHistory(n int) Option { return func(c *config) { c.history = n } }

func newConfig(opts []Option) *config {
	c := &config{
		maxWindow:  DefaultMaxWindow,
		windowSize: DefaultWindowSize,
		cacheSize:  DefaultCacheSize,
		maxText:    DefaultMaxText,
		indexSize:  DefaultIndexSize,
		history:    8 << 20,
		level:      DefaultLevel,
	}
	for _, o := range opts {
		o(c)
	}
	c.maxWindow = clamp(c.maxWindow, 1, maxVarint32)
	c.windowSize = clamp(c.windowSize, 1, c.maxWindow)
	c.cacheSize = clamp(c.cacheSize, 1<<16, sizeMax)
	c.indexSize = clamp(c.indexSize, 1<<10, 1<<28)
	c.history = clamp(c.history, 0, sizeMax)
	return c
}

// sizeMax bounds the byte counts an option may set: 1 TiB, or what an int
// holds on a 32-bit system.
const sizeMax = int(min(1<<40, math.MaxInt))

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
