package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/server"
)

func corsResult(r Report) Result {
	for _, c := range r.Checks {
		if c.ID == "cors.expose" {
			return c
		}
	}
	return Result{}
}

func TestCORSExpose(t *testing.T) {
	const page = "http://localhost:8000"
	hideDigests := rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if h.Get("Access-Control-Expose-Headers") != "" {
			h.Set("Access-Control-Expose-Headers", "ETag, Content-Range")
		}
		return body
	})
	wrongOrigin := rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if h.Get("Access-Control-Allow-Origin") != "" {
			h.Set("Access-Control-Allow-Origin", "https://other.example")
		}
		return body
	})
	starExpose := rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "*")
		return body
	})
	// Browsers fetch() with GET: CORS fields only a HEAD carries do not
	// let a script read the digests of the bytes it gets.
	headOnly := func(field string) func(http.Handler) http.Handler {
		return rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
			if r.Method == http.MethodGet {
				h.Del(field)
			}
			return body
		})
	}
	// A page's fetch() of a response that is an error reads no digests,
	// whatever its CORS fields expose.
	failWithOrigin := rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if r.Header.Get("Origin") != "" {
			*status = http.StatusForbidden
		}
		return body
	})
	for _, tt := range []struct {
		name   string
		wrap   func(http.Handler) http.Handler
		opts   []server.Option
		origin string
		status Status
		msg    string
	}{
		{"no cors", nil, nil, "", Skip, "no Access-Control-Allow-Origin for Origin: " + DefaultOrigin},
		{"star", nil, []server.Option{server.WithCORS([]string{"*"})}, "", Pass, "Repr-Digest, Content-Digest exposed to scripts on " + DefaultOrigin},
		{"listed origin", nil, []server.Option{server.WithCORS([]string{page})}, page, Pass, "Repr-Digest, Content-Digest exposed"},
		{"origin not listed", nil, []server.Option{server.WithCORS([]string{page})}, "", Skip, "no Access-Control-Allow-Origin"},
		{"digests hidden", hideDigests, []server.Option{server.WithCORS([]string{"*"})}, "", Warn, "Access-Control-Expose-Headers lacks Repr-Digest, Content-Digest"},
		{"another origin allowed", wrongOrigin, []server.Option{server.WithCORS([]string{page})}, page, Warn, `Access-Control-Allow-Origin is "https://other.example"`},
		{"expose star", starExpose, nil, "", Pass, "exposed"},
		{"allowed on HEAD only", headOnly("Access-Control-Allow-Origin"), []server.Option{server.WithCORS([]string{"*"})}, "", Skip, "no Access-Control-Allow-Origin"},
		{"error with Origin", failWithOrigin, []server.Option{server.WithCORS([]string{"*"})}, "", Warn, "GET with Origin: " + DefaultOrigin + " returned 403"},
		{"exposed on HEAD only", headOnly("Access-Control-Expose-Headers"), []server.Option{server.WithCORS([]string{"*"})}, "", Warn, "Access-Control-Expose-Headers lacks Repr-Digest, Content-Digest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url := newOrigin(t, tt.wrap, tt.opts...)
			r := auditURL(t, url+"/hello.json", Options{Origin: tt.origin})
			got := corsResult(r)
			if got.Status != tt.status || !strings.Contains(got.Message, tt.msg) {
				t.Errorf("cors.expose = %s %q, want %s containing %q", got.Status, got.Message, tt.status, tt.msg)
			}
		})
	}
}

// cors.expose decides on header fields only: its GET with Origin
// (headersOnly, noTrailer) leaves the body unread even when a trailer may
// follow (chunked), where the Want probe (headersOnly) reads it for one.
func TestCORSProbeReadsNoBody(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("a chunked body"))
		w.(http.Flusher).Flush()
		w.Write([]byte(" in two chunks"))
	}))
	defer ts.Close()
	a := &audit{url: ts.URL, opts: Options{}.withDefaults(), s: newSheet()}
	for _, c := range []struct {
		q    request
		read int64
	}{
		{request{method: http.MethodGet, headersOnly: true, noTrailer: true}, 0},
		{request{method: http.MethodGet, headersOnly: true}, int64(len("a chunked body in two chunks"))},
	} {
		r, err := a.do(context.Background(), c.q)
		if err != nil {
			t.Fatal(err)
		}
		if r.size != c.read {
			t.Errorf("noTrailer %v: read %d bytes, want %d", c.q.noTrailer, r.size, c.read)
		}
		r.close()
	}
}
