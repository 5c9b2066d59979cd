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
