package fetch

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/dictionary"
	"github.com/hdig/hdig/verify"
)

// dictEntry decides whether the response of res becomes a dictionary
// (RFC 9842 §2.1) and with which rules. It returns ok false, and a note
// for the verdict when the origin offered one that cannot be kept ("" when
// it offered none).
func dictEntry(res *Result, now time.Time) (d cache.Dict, sum []byte, note string, ok bool) {
	vals := res.Header.Values(fieldUseAsDictionary)
	if len(vals) == 0 {
		return cache.Dict{}, nil, "", false
	}
	no := func(format string, a ...any) (cache.Dict, []byte, string, bool) {
		return cache.Dict{}, nil, "Use-As-Dictionary: not stored: " + fmt.Sprintf(format, a...), false
	}
	switch res.Status {
	case http.StatusOK:
	case http.StatusIMUsed:
		// The instance rebuilt from a 226 is the 200 the origin would have
		// sent (RFC 3229 §10.6, §10.7.2), and the 226's fields are its:
		// stored only once a digest of the rebuilt bytes proved them.
		if !rebuiltVerified(res.Verdict) {
			return no("nothing verified the instance rebuilt from the 226 (no Repr-Digest matched)")
		}
	default:
		return no("a %d is not the whole representation", res.Status)
	}
	sum = res.SHA256
	if res.Decoded {
		sum = res.plainSHA256
	} else if encoded(res.Encoding) {
		return no("the body was written %s-encoded (use --compressed)", res.Encoding)
	}
	if len(sum) == 0 {
		return no("the bytes written were not hashed")
	}
	use, err := dictionary.ParseUseAsDictionary(vals)
	if err != nil {
		return no("%v", err)
	}
	if !use.Usable() {
		return no("type %q is not understood (RFC 9842 §2.1.4: only raw)", use.Type)
	}
	base, err := url.Parse(res.URL)
	if err != nil || !secureContext(base) {
		return no("%s is not a secure context (RFC 9842 §8: https, or a loopback host)", res.URL)
	}
	base.User, base.Fragment, base.RawFragment = nil, "", ""
	p, err := dictionary.CompilePattern(use.Match, base)
	if err != nil {
		return no("%v", err)
	}
	if !p.SameOrigin() {
		return no("match %q names another origin than %s (RFC 9842 §2.2.2)", use.Match, p.Origin())
	}
	at := res.at
	if at.IsZero() {
		at = now
	}
	expires, fresh := cache.Freshness(res.Header, at)
	if !fresh {
		return no("the response is not fresh (RFC 9842 §2.2.1; no max-age, Expires or Last-Modified, or no-cache, no-store)")
	}
	d = cache.Dict{URL: base.String(), Origin: p.Origin(), Match: use.Match, MatchDest: use.MatchDest, ID: use.ID,
		Type: use.Type, Expires: expires, SHA256: hex.EncodeToString(sum)}
	return d, sum, "", true
}

// rebuiltVerified says a digest of the whole rebuilt instance matched
// and none failed: not only Content-Digest or Content-MD5, which are of
// the delta bytes. The rule of Result.Outcome, for content that is not
// the whole representation.
func rebuiltVerified(v verify.Verdict) bool {
	return (&Result{Verdict: v}).Outcome() == verify.Verified
}

// storeDict keeps the bytes written for res as a dictionary when the
// response offered itself as one; open reads them back (from the held
// body or the output file). The store checks them against the sha-256
// computed as they arrived.
func storeDict(store *cache.Cache, res *Result, open func() (io.Reader, func(), error)) {
	d, _, note, ok := dictEntry(res, time.Now())
	if note != "" {
		res.Verdict.Warn(note)
	}
	if !ok {
		return
	}
	r, done, err := open()
	if err != nil {
		res.Verdict.Warn(fmt.Sprintf("Use-As-Dictionary: not stored: %v", err))
		return
	}
	defer done()
	if _, err := store.PutDict(d, r); err != nil {
		if errors.Is(err, cache.ErrTooLarge) {
			err = fmt.Errorf("%d bytes, over the dictionary size bound", res.Bytes)
		}
		res.Verdict.Warn(fmt.Sprintf("Use-As-Dictionary: not stored: %v", err))
	}
}

// storeDictHeld stores from a held body.
func storeDictHeld(store *cache.Cache, res *Result, held *HeldSink) {
	storeDict(store, res, func() (io.Reader, func(), error) {
		r, err := held.Reader()
		return r, func() {}, err
	})
}

// storeDictFile stores from the verified output file.
func storeDictFile(store *cache.Cache, res *Result, path string) {
	storeDict(store, res, func() (io.Reader, func(), error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	})
}
