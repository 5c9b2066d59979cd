package fetch

import (
	"math"
	"net/http"
	"testing"
)

// zsync's rule for "the file changed" compares entity tags weakly and
// dates as dates, as versionDiffers' does: W/"v1" and "v1", or one date
// in two formats, are the same version (a restart for nothing before).
func TestValidatorsDifferWeakly(t *testing.T) {
	v := validatorsOf(http.Header{"Etag": {`W/"v1"`}, "Last-Modified": {"Sun, 09 Sep 2001 01:46:40 GMT"}})
	for _, tc := range []struct {
		h    http.Header
		same bool
	}{
		{http.Header{"Etag": {`"v1"`}}, true},
		{http.Header{"Last-Modified": {"Sunday, 09-Sep-01 01:46:40 GMT"}}, true},
		{http.Header{"Etag": {`"v2"`}}, false},
		{http.Header{"Last-Modified": {"Sun, 09 Sep 2001 01:46:41 GMT"}}, false},
	} {
		if got := v.differs(tc.h); (got == "") != tc.same {
			t.Errorf("%v: differs %q, want same %v", tc.h, got, tc.same)
		}
	}
}

// A stream seed's bound never overflows, whatever Length a control file
// declares.
func TestMaxStreamSeedNoOverflow(t *testing.T) {
	if got := maxStreamSeed(math.MaxInt64 / 2); got < math.MaxInt64/2 {
		t.Errorf("maxStreamSeed(MaxInt64/2) = %d, want at least the length", got)
	}
}
