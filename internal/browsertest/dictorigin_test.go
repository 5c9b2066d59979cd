package browsertest_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hdig/hdig/dictionary"
)

// dictOrigin is a minimal RFC 9842 origin written with package dictionary,
// standing in for hdig serve --dictionary: every file it serves offers
// itself as a dictionary for the paths match names, and a request whose
// Available-Dictionary names one of its files and whose Accept-Encoding
// lists coding gets the file encoded against that dictionary. Every
// response carries Unencoded-Digest over the decoded bytes.
type dictOrigin struct {
	files  map[string][]byte // path → bytes
	match  string            // Use-As-Dictionary match
	coding string            // dcb or dcz
	// lie sends an Unencoded-Digest that is not that of the decoded
	// bytes (Chromium checks it on every response).
	lie atomic.Bool

	mu     sync.Mutex
	hashes map[dictionary.Hash][]byte
}

func newDictOrigin(files map[string][]byte, match, coding string) *dictOrigin {
	o := &dictOrigin{files: files, match: match, coding: coding, hashes: map[dictionary.Hash][]byte{}}
	for _, b := range files {
		o.hashes[dictionary.HashOf(b)] = b
	}
	return o
}

func (o *dictOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := o.files[r.URL.Path]
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	use, err := dictionary.Use{Match: o.match}.String()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.Set("Content-Type", "text/javascript")
	// Chromium stores a dictionary only from a cacheable response.
	h.Set("Cache-Control", "max-age=3600")
	h.Set("Use-As-Dictionary", use)
	h.Set("Vary", "Accept-Encoding, Available-Dictionary")
	unencoded := body
	if o.lie.Load() {
		unencoded = []byte("other bytes")
	}
	h.Set("Unencoded-Digest", sfSHA256(unencoded))
	if dict := o.dictionaryFor(r); dict != nil {
		enc, err := dictionary.Encode(o.coding, body, dict)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.Set("Content-Encoding", o.coding)
		body = enc
	}
	w.Write(body)
}

// dictionaryFor returns the dictionary r's Available-Dictionary names, if
// this origin holds it and r accepts the coding.
func (o *dictOrigin) dictionaryFor(r *http.Request) []byte {
	v := r.Header.Values("Available-Dictionary")
	if len(v) == 0 || !acceptsCoding(r.Header.Get("Accept-Encoding"), o.coding) {
		return nil
	}
	hash, err := dictionary.ParseAvailableDictionary(v)
	if err != nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hashes[hash]
}

// acceptsCoding reports whether an Accept-Encoding value lists coding
// with a non-zero weight.
func acceptsCoding(ae, coding string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), coding) {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
