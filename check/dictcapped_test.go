package check

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hdig/hdig/dictionary"
)

// A dcb answer whose identity GET was over --max-body was compared with
// nothing: dictionary.decode must not pass. Here the first GET is over the
// cap, the dictionary fetched next is small, and the dcb body decodes to
// bytes that are not the representation.
func TestDictionaryDecodeCappedIdentity(t *testing.T) {
	dict := []byte(strings.Repeat("the dictionary, small ", 4))
	big := strings.Repeat("x", 4096)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Use-As-Dictionary", `match="/*"`)
		switch {
		case r.Header.Get("Available-Dictionary") != "":
			body, err := dictionary.EncodeDCB([]byte("not the representation"), dict)
			if err != nil {
				t.Error(err)
			}
			w.Header().Set("Content-Encoding", "dcb")
			w.Header().Set("Vary", "accept-encoding, available-dictionary")
			w.Write(body)
		case r.Header.Get("X-Amz-Checksum-Mode") != "": // the first GET
			w.Write([]byte(big))
		default:
			w.Write(dict)
		}
	}))
	defer ts.Close()
	r := auditURL(t, ts.URL+"/f", Options{MaxBody: 1024})
	for _, c := range r.Checks {
		if c.ID == "dictionary.decode" && c.Status == Pass {
			t.Errorf("dictionary.decode passed, comparing nothing: %s", c.Message)
		}
	}
}

// A dictionary over --max-body is skipped with a message that says so,
// naming the bound, not a raw "read whole: false" with the bound plus one
// byte as its size.
func TestDictionaryOverMaxBodySaysWhy(t *testing.T) {
	big := []byte(strings.Repeat("the dictionary, big ", 100))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Use-As-Dictionary", `match="/*"`)
		w.Write(big)
	}))
	defer ts.Close()
	r := auditURL(t, ts.URL+"/f", Options{MaxBody: 1024})
	found := false
	for _, c := range r.Checks {
		if !strings.HasPrefix(c.ID, "dictionary.") || c.Status != Skip {
			continue
		}
		found = true
		if strings.Contains(c.Message, "false") || !strings.Contains(c.Message, "over --max-body (1024 bytes)") {
			t.Errorf("%s: %q, want it to say the dictionary is over --max-body (1024 bytes)", c.ID, c.Message)
		}
	}
	if !found {
		t.Fatal("no dictionary check skipped")
	}
}
