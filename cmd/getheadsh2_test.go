package cmd

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Over HTTP/2, -i and -D write the status line as curl does, "HTTP/2 200 "
// (no reason phrase: HTTP/2 has none), so scripts matching curl's
// `^HTTP/2 200` read hdig's too. They wrote Go's "HTTP/2.0 200 OK".
func TestHeadsHTTP2AsCurl(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(helloHandler))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	code, out, errOut := runHdig(t, "get", "-s", "-k", "--no-cache", "-i", srv.URL)
	if code != 0 || !strings.HasPrefix(out, "HTTP/2 200 \r\n") || !strings.HasSuffix(out, "\r\n\r\n"+helloBody) {
		t.Errorf("exit %d, %q; stderr %s", code, out, errOut)
	}
}
