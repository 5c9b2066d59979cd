package fetch

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/zsync"
)

// A file replaced on the origin during a zsync run is told from corrupt
// bytes by what the origin says of its version: the ETag (strong or weak)
// and Last-Modified of each answer against the first's. A block that fails
// its MD4 in an answer of another version is the version changing, not a
// fault of the bytes: the run starts over once (Client.Zsync), control
// file included, as the Range path fetches another version again
// (versionDiffers). Without a validator that differs nothing tells them
// apart: the failed block stays a mismatch.

// errChanged marks a run that saw the file change; it is a mismatch of
// the control file (zsync.ErrMismatch): no splice is written, the part is
// dropped.
var errChanged error = changedError{}

type changedError struct{}

func (changedError) Error() string        { return "the control file no longer describes it" }
func (changedError) Is(target error) bool { return target == zsync.ErrMismatch }

// changed is the error of a file at target that changed: why says how.
func changed(target, why string) error {
	return fmt.Errorf("zsync: %s changed during the download (%s): %w", httpfield.Redact(target), why, errChanged)
}

// validators are what an answer says of the version it is of.
type validators struct {
	etag, modified string
	set            bool
}

func validatorsOf(h http.Header) validators {
	return validators{etag: strings.TrimSpace(h.Get("ETag")), modified: httpDate(h.Get("Last-Modified")), set: true}
}

// differs says how h is of another version than v: another ETag (by weak
// comparison, sameTag) or another Last-Modified (as dates), each when
// both state one; "" when none shows.
func (v validators) differs(h http.Header) string {
	now := validatorsOf(h)
	switch {
	case v.etag != "" && now.etag != "" && !SameTag(v.etag, now.etag):
		return fmt.Sprintf("ETag %s, now %s", httpfield.Clip(v.etag), httpfield.Clip(now.etag))
	case v.modified != "" && now.modified != "" && v.modified != now.modified:
		return fmt.Sprintf("Last-Modified %s, now %s", httpfield.Clip(v.modified), httpfield.Clip(now.modified))
	}
	return ""
}
