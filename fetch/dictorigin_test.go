package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hdig/hdig/dictionary"
)

// dictOrigin is an RFC 9842 origin for the client tests: each path serves
// its version with Use-As-Dictionary (unless useAs is set for it), and a
// request whose Available-Dictionary names a version it served gets the
// body encoded against it in coding (dcb or dcz, when accepted), with
// Repr-Digest over the encoded bytes and Unencoded-Digest over the
// decoded ones; fault breaks the encoded body.
type dictOrigin struct {
	srv      *httptest.Server
	mu       sync.Mutex
	files    map[string][]byte
	useAs    map[string]string // path -> Use-As-Dictionary ("-": none)
	cc       string            // Cache-Control of every response
	coding   string            // dcb or dcz; "" ignores dictionaries
	fault    string            // "header": the header names another hash; "corrupt": a byte flipped after the digests
	badUnenc bool              // send a wrong Unencoded-Digest
	reqs     []http.Header
	served   map[dictionary.Hash][]byte
}

func newDictOrigin(t *testing.T, coding string) *dictOrigin {
	o := &dictOrigin{files: map[string][]byte{}, useAs: map[string]string{}, cc: "max-age=3600", coding: coding,
		served: map[dictionary.Hash][]byte{}}
	o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *dictOrigin) set(path string, body []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.files[path] = body
}

// requests returns the request headers seen for path, in order.
func (o *dictOrigin) requests() []http.Header {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]http.Header{}, o.reqs...)
}

func reprOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"
}

func (o *dictOrigin) serve(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.reqs = append(o.reqs, r.Header.Clone())
	data, ok := o.files[r.URL.Path]
	useAs := o.useAs[r.URL.Path]
	dict, have := o.served[dictHashOf(r)]
	o.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	switch useAs {
	case "":
		h.Set("Use-As-Dictionary", `match="/app/*", id="`+r.URL.Path+`"`)
	case "-":
	default:
		h.Set("Use-As-Dictionary", useAs)
	}
	if o.cc != "" {
		h.Set("Cache-Control", o.cc)
	}
	h.Set("Vary", "accept-encoding, available-dictionary")
	body := data
	if have && o.coding != "" && strings.Contains(r.Header.Get("Accept-Encoding"), o.coding) {
		enc, err := dictionary.Encode(o.coding, data, dict)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		h.Set("Content-Encoding", o.coding)
		unenc := reprOf(data)
		if o.badUnenc {
			unenc = reprOf(append(data, 'x'))
		}
		h.Set("Unencoded-Digest", unenc)
		switch o.fault {
		case "header": // digests consistent with the body: only the hash is wrong
			enc[dictionary.HeaderLen(o.coding)-1] ^= 1
			h.Set("Repr-Digest", reprOf(enc))
		case "truncate": // the connection ends inside the header
			h.Set("Repr-Digest", reprOf(enc))
			h.Set("Content-Length", fmt.Sprint(len(enc)))
			enc = enc[:10]
		case "corrupt":
			h.Set("Repr-Digest", reprOf(enc))
			enc = bytes.Clone(enc)
			enc[len(enc)-3] ^= 0x10
		}
		body = enc
	}
	if h.Get("Repr-Digest") == "" {
		h.Set("Repr-Digest", reprOf(body))
	}
	o.mu.Lock()
	o.served[dictionary.HashOf(data)] = data
	o.mu.Unlock()
	w.Write(body)
}

// dictHashOf reads a request's Available-Dictionary (zero when absent).
func dictHashOf(r *http.Request) dictionary.Hash {
	h, _ := dictionary.ParseAvailableDictionary(r.Header.Values("Available-Dictionary"))
	return h
}
