package patch

// DefaultLevel is the vcdiff encoder's level when WithLevel is not given.
const DefaultLevel = 6

// tuning is how hard the vcdiff encoder's matcher looks for copies; a
// level from 0 (fastest) to 9 (smallest) picks one, like xdelta3's -0…-9.
type tuning struct {
	ways      int  // entries a bucket of the 8-byte source index holds
	lazySteps int  // later positions a short match is compared with
	lazyLen   int  // a match at least this long is taken at once
	local     bool // search the base around the last copy for shifted matches
	self      bool // copies from the target window itself
	indexMul  int  // source index entries, in units of the default size
	step      int  // densest sampling of the 8-byte source index
	long      bool // also index 16 bytes at every 8th offset
}

var levels = [10]tuning{
	{ways: 1, lazySteps: 0, lazyLen: 0, local: false, self: false, indexMul: 1, step: 4, long: false},
	{ways: 2, lazySteps: 0, lazyLen: 0, local: true, self: true, indexMul: 1, step: 4, long: false},
	{ways: 4, lazySteps: 2, lazyLen: 16, local: true, self: true, indexMul: 1, step: 4, long: false},
	{ways: 4, lazySteps: 4, lazyLen: 32, local: true, self: true, indexMul: 1, step: 4, long: false},
	{ways: 8, lazySteps: 4, lazyLen: 32, local: true, self: true, indexMul: 1, step: 4, long: false},
	{ways: 8, lazySteps: 8, lazyLen: 32, local: true, self: true, indexMul: 1, step: 4, long: false},
	{ways: 8, lazySteps: 8, lazyLen: 32, local: true, self: true, indexMul: 1, step: 4, long: false},
	{ways: 16, lazySteps: 8, lazyLen: 64, local: true, self: true, indexMul: 1, step: 2, long: true},
	{ways: 16, lazySteps: 16, lazyLen: 128, local: true, self: true, indexMul: 2, step: 2, long: true},
	{ways: 32, lazySteps: 16, lazyLen: 256, local: true, self: true, indexMul: 2, step: 2, long: true},
}

// WithLevel sets how hard the vcdiff encoder looks for copies: 0 is
// fastest, 9 gives the smallest deltas (default 6). Up to level 6 the base
// is indexed at every 4th offset (matches of 11 bytes or more are sure to
// be found), from 7 on at every 2nd with a second index of 16-byte
// strings; levels 8 and 9 use twice the WithIndexSize entries.
func WithLevel(n int) Option { return func(c *config) { c.level = clamp(n, 0, 9) } }
