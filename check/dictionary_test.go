package check

import (
	"bytes"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/server/delta"
	"github.com/hdig/hdig/verify"
)

// dictOrigin is the reference origin offering every file as a dictionary,
// its responses edited by wrap (nil: none).
func dictOrigin(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	h, err := delta.New(filepath.Join(t.TempDir(), "history"), 2, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newOrigin(t, wrap, server.WithDelta(h), server.WithDictionary("/*"))
}

// onDictionary edits only the responses to requests with
// Available-Dictionary.
func onDictionary(edit func(h http.Header, body []byte) []byte) func(http.Handler) http.Handler {
	return rewrite(func(r *http.Request, _ *int, h http.Header, body []byte) []byte {
		if r.Header.Get("Available-Dictionary") == "" {
			return body
		}
		return edit(h, body)
	})
}

func TestDictionaryReferenceOrigin(t *testing.T) {
	base := dictOrigin(t, nil)
	r := auditURL(t, base+"/doc.txt", Options{})
	if bad := append(ids(r, Fail), ids(r, Warn)...); len(bad) > 0 {
		t.Fatalf("failed or warned: %v\n%s", bad, dump(r))
	}
	pass := ids(r, Pass)
	for _, id := range append(dictionaryIDs, "etag.consistency") {
		if !slices.Contains(pass, id) {
			t.Errorf("%s did not pass\n%s", id, dump(r))
		}
	}
}

// Without Use-As-Dictionary the checks skip.
func TestDictionaryNotOffered(t *testing.T) {
	r := auditURL(t, newOrigin(t, nil)+"/doc.txt", Options{})
	for _, c := range r.Checks {
		if slices.Contains(dictionaryIDs, c.ID) && c.Status != Skip {
			t.Errorf("%s: want skip, got %s: %s", c.ID, c.Status, c.Message)
		}
	}
}

func TestDictionaryFaults(t *testing.T) {
	flip := func(b []byte, at int) []byte {
		b = bytes.Clone(b)
		b[at] ^= 0xFF
		return b
	}
	tests := []struct {
		name string
		wrap func(http.Handler) http.Handler
		fail string
	}{
		{"no match", rewrite(func(_ *http.Request, _ *int, h http.Header, b []byte) []byte {
			h.Set("Use-As-Dictionary", `id="x"`)
			return b
		}), "dictionary.syntax"},
		{"regexp group", rewrite(func(_ *http.Request, _ *int, h http.Header, b []byte) []byte {
			h.Set("Use-As-Dictionary", `match="/(a|b)/*"`)
			return b
		}), "dictionary.syntax"},
		{"match on another origin", rewrite(func(_ *http.Request, _ *int, h http.Header, b []byte) []byte {
			h.Set("Use-As-Dictionary", `match="https://other.example/*"`)
			return b
		}), "dictionary.syntax"},
		{"no Vary", onDictionary(func(h http.Header, b []byte) []byte {
			h.Del("Vary")
			return b
		}), "dictionary.vary"},
		{"Vary without available-dictionary", onDictionary(func(h http.Header, b []byte) []byte {
			h.Set("Vary", "Accept-Encoding")
			return b
		}), "dictionary.vary"},
		{"another hash", onDictionary(func(_ http.Header, b []byte) []byte { return flip(b, 10) }), "dictionary.hash"},
		{"bad magic", onDictionary(func(_ http.Header, b []byte) []byte { return flip(b, 0) }), "dictionary.hash"},
		{"does not decode", onDictionary(func(h http.Header, b []byte) []byte {
			b = flip(b, len(b)-2)
			h.Set("Repr-Digest", verify.FormatDigests(sums(b)))
			h.Del("Content-Digest")
			return b
		}), "dictionary.decode"},
		{"Repr-Digest of the decoded bytes", onDictionary(func(h http.Header, b []byte) []byte {
			h.Set("Repr-Digest", h.Get("Unencoded-Digest"))
			return b
		}), "dictionary.repr-digest"},
		{"Unencoded-Digest of the encoded bytes", onDictionary(func(h http.Header, b []byte) []byte {
			h.Set("Unencoded-Digest", h.Get("Repr-Digest"))
			return b
		}), "dictionary.unencoded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := auditURL(t, dictOrigin(t, tt.wrap)+"/doc.txt", Options{})
			if got := ids(r, Fail); !slices.Contains(got, tt.fail) {
				t.Fatalf("want %s to fail, failed: %v\n%s", tt.fail, got, dump(r))
			}
		})
	}
}

func sums(b []byte) []verify.Digest {
	ds, _, _ := verify.Sum(bytes.NewReader(b), []verify.Algorithm{sha256Of()})
	return ds
}

// The dcz coding is checked as dcb is.
func TestDictionaryDCZ(t *testing.T) {
	onlyDCZ := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Available-Dictionary") != "" {
				r.Header.Set("Accept-Encoding", dictionary.CodingDCZ)
			}
			h.ServeHTTP(w, r)
		})
	}
	r := auditURL(t, dictOrigin(t, onlyDCZ)+"/doc.txt", Options{})
	pass := ids(r, Pass)
	for _, c := range r.Checks {
		if slices.Contains(dictionaryIDs, c.ID) && (!slices.Contains(pass, c.ID) || c.ID == "dictionary.hash" && !strings.Contains(c.Message, "40-byte dcz")) {
			t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
		}
	}
}

// An origin that offers a dictionary (Use-As-Dictionary) but fails the
// request that uses it (every browser holding the dictionary sends one)
// fails dictionary.decode; a 406, which RFC 9110 allows, stays a skip.
func TestDictionaryRequestError(t *testing.T) {
	for status, want := range map[int]Status{500: Fail, 404: Fail, 400: Fail, 406: Skip} {
		wrap := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Available-Dictionary") != "" {
					http.Error(w, "no", status)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
		r := auditURL(t, dictOrigin(t, wrap)+"/doc.txt", Options{})
		if c := result(r, "dictionary.decode"); c.Status != want {
			t.Errorf("%d for the request with Available-Dictionary: dictionary.decode %s %q, want %s", status, c.Status, c.Message, want)
		}
	}
}
