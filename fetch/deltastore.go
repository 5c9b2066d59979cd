package fetch

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/verify"
)

// storable says whether a verified result may become a base version of
// the URL asked for: not one another origin sent after a redirect, whose
// entity tag that URL's origin could answer 304 (an http hop a network
// attacker answered, kept under the https URL), nor a 226's body hdig
// did not rebuild (one to the caller's own A-IM: the delta or compressed
// instance, written as it came).
func storable(res *Result) bool {
	if res == nil || res.SHA256 == nil || res.Decoded || !strongETag(res.ETag) || !SameOrigin(res.URL, res.RequestURL) {
		return false
	}
	switch res.Status {
	case http.StatusOK:
	case http.StatusIMUsed:
		if res.Strategy != StrategyDelta {
			return false
		}
	default:
		return false
	}
	return res.Encoding == "" && cache.Storable(res.Header)
}

func entryFor(res *Result) cache.Entry {
	return cache.Entry{URL: res.RequestURL, ETag: res.ETag, ReprDigest: res.Header.Get(verify.ReprDigest),
		ContentType: res.Header.Get("Content-Type")}
}

func (c *Client) storeHeld(store *cache.Cache, res *Result, held *HeldSink) {
	if !storable(res) {
		return
	}
	var err error
	if f, size := held.spooled(); f != nil {
		// The spool's bytes are those hashed as they arrived: copied,
		// not hashed again (1 GiB: a second or more of CPU).
		e := entryFor(res)
		e.SHA256 = hex.EncodeToString(res.SHA256)
		_, err = store.PutVerified(e, f, size)
	} else {
		var r io.Reader
		if r, err = held.Reader(); err == nil {
			_, err = store.Put(entryFor(res), r)
		}
	}
	if err != nil && !errors.Is(err, cache.ErrTooLarge) {
		res.Verdict.Warn(fmt.Sprintf("not cached: %v", err))
	}
}

func storeLinked(store *cache.Cache, res *Result, path string) {
	if !storable(res) {
		return
	}
	if _, err := store.PutFile(entryFor(res), path, hex.EncodeToString(res.SHA256)); err != nil {
		res.Verdict.Warn(fmt.Sprintf("not cached: %v", err))
	}
}

// strongETag reports a strong entity tag (RFC 9110 §8.8.3).
func strongETag(t string) bool { return len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' }
