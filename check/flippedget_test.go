package check

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A byte flipped in the GET's body only fails repr-digest.match; the HEAD
// and the 206, whose Repr-Digest is the representation's (the GET's own
// field's), are not failed for not matching bytes that failed their own
// check: a second GET's bytes tell which is the representation. They were
// reported as not matching "the representation the GET returned", blamed
// for the GET's fault. (An origin that serves the flipped byte every time
// still fails them: TestFaults.)
func TestFlippedGETBodyDoesNotBlameOthers(t *testing.T) {
	gets := 0
	rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if r.Method == http.MethodGet && r.Header.Get("Range") == "" && r.Header.Get("Accept-Encoding") == "identity" {
			if gets++; gets == 1 {
				b := append([]byte(nil), body...)
				b[0] ^= 1
				return b
			}
		}
		return body
	}))+"/doc.txt", Options{})
	if got := result(rep, "repr-digest.match"); got.Status != Fail {
		t.Errorf("repr-digest.match = %s (%s), want fail: the GET's byte is flipped", got.Status, got.Message)
	}
	for _, id := range []string{"head.repr-digest", "range.repr-digest"} {
		got := result(rep, id)
		if got.Status != Pass || !strings.Contains(got.Message, "second GET") {
			t.Errorf("%s = %s (%s), want a pass against a second GET's bytes, not a failure against the GET's, which failed their own Repr-Digest", id, got.Status, got.Message)
		}
	}
}

// The same, the second GET refused: nothing tells which of the GET's
// bytes and its Repr-Digest is the representation, so the HEAD and the
// 206, which agree with the field, are not judged, never failed.
func TestFlippedGETBodyUnjudgedWithoutSecondGET(t *testing.T) {
	gets := 0
	rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if r.Method == http.MethodGet && r.Header.Get("Range") == "" && r.Header.Get("Accept-Encoding") == "identity" {
			switch gets++; gets {
			case 1:
				b := append([]byte(nil), body...)
				b[0] ^= 1
				return b
			case 2:
				*status = http.StatusServiceUnavailable
			}
		}
		return body
	}))+"/doc.txt", Options{})
	for _, id := range []string{"head.repr-digest", "range.repr-digest"} {
		if got := result(rep, id); got.Status != Skip || !strings.Contains(got.Message, "failed it") {
			t.Errorf("%s = %s (%s), want not judged: the GET's bytes failed its Repr-Digest, and nothing tells which is right", id, got.Status, got.Message)
		}
	}
}

// An origin whose Repr-Digest is stale for every algorithm fails
// repr-digest.match; the Want variant's Repr-Digest (of the algorithm
// asked for) does not match the bytes either, and a second GET returns
// the same bytes: the variant fails too. It passed, unjudged, because
// the GET's own field had failed.
func TestStaleReprFailsWantVariant(t *testing.T) {
	stale := sha256.Sum256([]byte("stale\n"))
	stale512 := sha512.Sum512([]byte("stale\n"))
	field := fmt.Sprintf("sha-256=:%s:, sha-512=:%s:", base64.StdEncoding.EncodeToString(stale[:]), base64.StdEncoding.EncodeToString(stale512[:]))
	rep := auditURL(t, newOrigin(t, rewrite(func(r *http.Request, status *int, h http.Header, body []byte) []byte {
		if h.Get("Repr-Digest") != "" {
			h.Set("Repr-Digest", field)
		}
		return body
	}))+"/doc.txt", Options{})
	if got := result(rep, "repr-digest.match"); got.Status != Fail {
		t.Errorf("repr-digest.match = %s (%s), want fail: the Repr-Digest is stale", got.Status, got.Message)
	}
	if got := result(rep, "want-repr-digest.honoured"); got.Status != Fail || !strings.Contains(got.Message, "second GET") {
		t.Errorf("want-repr-digest.honoured = %s (%s), want fail: its Repr-Digest does not match the bytes a second GET returned again", got.Status, got.Message)
	}
}

// The GET's body is flipped, and by the time the second GET that would
// tell which is the representation is sent, the file has changed (a new
// ETag): the HEAD, which described the first version rightly, is not
// judged against the new version's bytes. It was failed.
func TestFlippedGETThenChangedDoesNotBlameHEAD(t *testing.T) {
	v1, v2 := strings.Repeat("version one\n", 500), strings.Repeat("version two\n", 500)
	var mu sync.Mutex
	gets, headSeen := 0, false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, etag := v1, `"v1"`
		if headSeen && r.Method == http.MethodGet {
			body, etag = v2, `"v2"`
		}
		if r.Method == http.MethodHead {
			headSeen = true
		}
		first := false
		if r.Method == http.MethodGet && r.Header.Get("Range") == "" {
			gets++
			first = gets == 1
		}
		mu.Unlock()
		w.Header().Set("ETag", etag)
		w.Header().Set("Repr-Digest", only(sumsOf(body), "sha-256"))
		if first {
			b := []byte(body)
			b[0] ^= 1
			body = string(b)
		}
		http.ServeContent(w, r, "doc.txt", time.Time{}, strings.NewReader(body))
	}))
	defer srv.Close()
	rep := auditURL(t, srv.URL+"/doc.txt", Options{})
	if got := result(rep, "head.repr-digest"); got.Status == Fail {
		t.Errorf("head.repr-digest = %s (%s); want it not failed: it matched the version of its time", got.Status, got.Message)
	}
}
