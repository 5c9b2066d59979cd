package check

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// versionOrigin serves doc as v1 (ETag "v1") until it is asked for two
// ranges at once; that answer and every later one are of the version
// then, which later(tag, body) may change for later plain GETs (nil: v2).
// Go's ServeContent answers Range, with multipart/byteranges for two.
func versionOrigin(t *testing.T, parts, later func() (tag, body string)) string {
	var moved atomic.Bool
	h := func(w http.ResponseWriter, r *http.Request) {
		tag, body := `"v1"`, lines(200, 1)
		switch multi := strings.Contains(r.Header.Get("Range"), ","); {
		case multi:
			moved.Store(true)
			tag, body = parts()
		case moved.Load():
			tag, body = later()
		}
		if tag == "" {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("ETag", tag)
		w.Header().Set("Content-Type", "text/plain")
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader(body))
	}
	ts := httptest.NewServer(http.HandlerFunc(h))
	t.Cleanup(ts.Close)
	return ts.URL + "/doc.txt"
}

// range.multipart skipped a 206 to two ranges under another ETag than the
// GET's whenever a second GET did not return the GET's bytes, even when
// that GET carried the 206's ETag (the representation changed to the
// 206's version, whose bytes it returned: versionRef compares with them),
// and said "did not return the GET's bytes" of a second GET that failed
// too. Its parts are compared with that GET's bytes; a failed second GET
// and one of a third version are told apart.
func TestMultipartChangedVersionJudged(t *testing.T) {
	v2 := strings.ReplaceAll(lines(200, 1), "a", "A") // as long as v1
	v3 := strings.ReplaceAll(lines(200, 1), "e", "E")
	of := func(tag, body string) func() (string, string) { return func() (string, string) { return tag, body } }
	for _, tt := range []struct {
		name         string
		parts, later func() (string, string)
		want         Status
		hint         string
	}{
		{"changed to the 206's version", of(`"v2"`, v2), of(`"v2"`, v2), Pass, "compared with a second GET's bytes"},
		{"parts not of their version", of(`"v2"`, v3), of(`"v2"`, v2), Fail, "differs from those bytes of the GET (second) body"},
		{"second GET failed", of(`"v2"`, v2), of("", ""), Skip, "a second GET that would tell whether the representation changed failed"},
		{"second GET of a third version", of(`"v2"`, v2), of(`"v3"`, v3), Skip, "returned other bytes than the GET's under ETag \"v3\""},
	} {
		rep := auditURL(t, versionOrigin(t, tt.parts, tt.later), Options{})
		if got := result(rep, "range.multipart"); got.Status != tt.want || !strings.Contains(got.Message, tt.hint) {
			t.Errorf("%s: range.multipart = %s %q, want %s (%s)", tt.name, got.Status, got.Message, tt.want, tt.hint)
		}
	}
}
