package fetch

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hdig/hdig/httpfield"
)

// modified is the Last-Modified of the version being fetched, which names
// it where no strong ETag does (an origin sending none, or a weak one).
type modified struct {
	date string // an IMF-fixdate; "" none
	// ifRange says date may be sent as If-Range (RFC 9110 §13.1.5): the
	// answer had no entity tag, strong or weak, and the date is strong
	// (§8.8.2.2: at least a second before the Date of that answer, so a
	// later change bears another one).
	ifRange bool
	// weak is the answer's weak entity tag (W/"…"), "" none: it may not
	// be sent as If-Range (§13.1.5), but another one, or none, on a 206
	// is another version all the same (§8.8.3.2's weak comparison).
	weak string
}

// maxWeakETag bounds the weak entity tag kept to name a version (the
// sidecar records it): a longer one is not kept.
const maxWeakETag = 1024

// modifiedOf is the Last-Modified h states as a validator.
func modifiedOf(h http.Header) modified {
	m := modified{date: httpDate(h.Get("Last-Modified"))}
	lm, err1 := http.ParseTime(m.date)
	at, err2 := http.ParseTime(strings.TrimSpace(h.Get("Date")))
	m.ifRange = err1 == nil && err2 == nil && h.Get("ETag") == "" && !at.Before(lm.Add(time.Second))
	m.weak = weakETag(h.Get("ETag"))
	return m
}

// weakETag is v when it is one weak entity tag of at most maxWeakETag
// bytes, else "".
func weakETag(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > maxWeakETag || !strings.HasPrefix(v, "W/") || ifRangeETag(v[2:]) == "" {
		return ""
	}
	return v
}

// SameTag is RFC 9110 §8.8.3.2's weak comparison of two entity tags:
// their opaque tags equal, whether or not either is weak.
func SameTag(a, b string) bool {
	return strings.TrimPrefix(a, "W/") == strings.TrimPrefix(b, "W/")
}

// httpDate is s, an HTTP-date, as an IMF-fixdate (the form a sender
// generates, RFC 9110 §5.6.7); "" when s is none.
func httpDate(s string) string {
	t, err := http.ParseTime(strings.TrimSpace(s))
	if err != nil {
		return ""
	}
	return t.UTC().Format(http.TimeFormat)
}

// ifRange is the If-Range of the origin's range requests: its strong
// ETag, else the Last-Modified when it may be sent (modified.ifRange);
// "" when neither, and then only what the answer states of its version
// tells a change (versionDiffers).
func (d *download) ifRange() string {
	if d.etag != "" {
		return d.etag
	}
	if d.modified.ifRange {
		return d.modified.date
	}
	return ""
}

// modifiedDiffers says how the weak ETag or the Last-Modified of h
// differs from the version's when they name the version (no strong ETag does: a
// strong ETag is the origin's exact validator, which servers behind one
// name may send for one file of other mtimes); "" when it does not. A 206
// stating none cannot be told from another version (RFC 9110 §15.3.7
// does not require it, and an origin that ignored If-Range and dropped it
// would have its bytes spliced with the part's): it differs too.
func (d *download) modifiedDiffers(h http.Header) string {
	if d.etag != "" {
		return ""
	}
	if tag := strings.TrimSpace(h.Get("ETag")); d.modified.weak != "" && !SameTag(tag, d.modified.weak) {
		if tag == "" {
			return fmt.Sprintf("no ETag, the version's is %s", d.modified.weak)
		}
		return fmt.Sprintf("ETag %s, not the %s", httpfield.Clip(tag), d.modified.weak)
	}
	got := httpDate(h.Get("Last-Modified"))
	switch {
	case d.modified.date == "" || got == d.modified.date:
		return ""
	case got == "":
		return fmt.Sprintf("no Last-Modified, the version's is %s", d.modified.date)
	}
	return fmt.Sprintf("Last-Modified %s, not the %s", got, d.modified.date)
}
