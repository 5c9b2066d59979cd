package fetch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/verify"
)

// A request body given for an https URL went out in cleartext when the
// origin redirected (307, 308, or 301/302 to a PUT) to an http URL: the
// credentials stayed behind (another origin), the body and its digests
// did not. Such a hop is refused before anything is sent to it. A body
// the redirect drops (303: a GET follows) is no reason to refuse it, nor
// is a redirect from https to https.
func TestBodyNotSentInCleartext(t *testing.T) {
	var mu sync.Mutex
	var plain []string
	cleartext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		plain = append(plain, r.Method+" "+string(b))
		mu.Unlock()
	}))
	defer cleartext.Close()
	for _, tt := range []struct {
		code    int
		method  string
		refused bool
	}{
		{http.StatusTemporaryRedirect, http.MethodPost, true},
		{http.StatusPermanentRedirect, http.MethodPost, true},
		{http.StatusMovedPermanently, http.MethodPut, true},
		{http.StatusSeeOther, http.MethodPost, false},
		{http.StatusFound, http.MethodPost, false},
	} {
		secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, cleartext.URL+"/to", tt.code)
		}))
		c, _ := NewClient(Options{FollowRedirects: true, Insecure: true, Timeout: testStall})
		req := &Request{URL: secure.URL + "/form", Method: tt.method, Policy: verify.DefaultPolicy(), Body: BytesBody([]byte("password=1234"))}
		_, err := c.Do(context.Background(), req, DiscardSink{})
		secure.Close()
		mu.Lock()
		got := plain
		plain = nil
		mu.Unlock()
		if tt.refused && (err == nil || len(got) != 0 || !strings.Contains(err.Error(), "cleartext")) {
			t.Errorf("%d %s: error %v, the http origin saw %q; want the hop refused", tt.code, tt.method, err, got)
		}
		if !tt.refused && (err != nil || len(got) != 1 || got[0] != "GET ") {
			t.Errorf("%d %s: error %v, the http origin saw %q; want one GET", tt.code, tt.method, err, got)
		}
	}
}
