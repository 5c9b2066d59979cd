package fetch

import (
	"net/http"
	"time"

	"github.com/hdig/hdig/verify"
)

// Strategies, as the contract's JSON names them.
const (
	StrategyFull        = "full"
	StrategyRanges      = "ranges"
	StrategyDelta       = "delta"
	StrategyNotModified = "not-modified"
	StrategyHead        = "head"
	StrategyZsync       = "zsync"
	StrategyDictionary  = "dictionary" // a dcb or dcz body decoded with a stored dictionary (RFC 9842)
)

// Result describes a finished fetch.
type Result struct {
	URL      string // where it ended up, a password in it redacted
	Status   int
	Header   http.Header
	Trailer  http.Header
	Verdict  verify.Verdict
	ETag     string
	Encoding string // Content-Encoding of the representation

	// Bytes is the size of the body written to the sink (decoded with
	// --compressed), Received the body bytes read off the network.
	Bytes    int64
	Received int64
	// Sent is the size of the request body (-T, -d, --data-binary).
	Sent int64
	// Unchanged says the origin answered the caller's own conditions with
	// 304: the caller's copy is current and nothing was written.
	Unchanged bool

	Strategy  string
	IM        []string
	DeltaBase string
	Pieces    int
	// Reused is the bytes taken from local copies instead of the network
	// (zsync seeds).
	Reused int64
	// Retries counts attempts made after the first.
	Retries int

	// RequestURL is the URL asked for (URL is where it ended up).
	RequestURL string
	// SHA256 is the sha-256 of the bytes written, when they are the
	// representation (not decoded); nil otherwise.
	SHA256 []byte
	// Decoded says the body was written decoded (--compressed).
	Decoded bool
	// Signatures are the checks of the response's signatures (--trust-key).
	Signatures []SignatureCheck
	// Authentic lists the digests that verified the bytes and are covered
	// by a valid signature of a trusted key, e.g. `Repr-Digest sha-256 by
	// "origin"`; SignedBy is the first one's keyid. Empty when not
	// authentic or not asked (Request.Trust).
	Authentic []string
	SignedBy  string
	// Dictionary is the dictionary a dcb or dcz body was decoded with
	// (strategy dictionary); nil otherwise.
	Dictionary *DictionaryUse
	// plainSHA256 is the sha-256 of the decoded bytes written, when the
	// response offered itself as a dictionary (Use-As-Dictionary).
	plainSHA256 []byte
	// at is when the response's header arrived (its freshness starts).
	at time.Time
	// answers is the request the response answers, as sent (the last
	// after redirects): the target of signature components with `req`.
	answers *http.Request
	// Mirrors reports what each mirror did (Client.Download with
	// DownloadOptions.Mirrors or LinkMirrors).
	Mirrors []MirrorReport
	// Part is the part file a failed or interrupted Client.Download left
	// for -C to resume ("" when none was kept).
	Part string
	// contentWhole says this message's content is the whole representation,
	// so a digest of the content (Content-Digest, Content-MD5) proves it;
	// false for a HEAD, a 304 (empty content), a 206, a 226 (a delta).
	// Set by verdictError, read by Outcome: one rule for the verdict word
	// and for --require-digest.
	contentWhole bool
}

// setSHA256 records the sha-256 among sums.
func (r *Result) setSHA256(sums []verify.Digest) {
	for _, d := range sums {
		if d.Algorithm == "sha-256" {
			r.SHA256 = d.Value
		}
	}
}

// Authenticated says a trusted key's signature proves the bytes: some
// digest it covers matched (Authentic) and the outcome is verified. The
// verdict line and the verdict word both ask it.
func (r *Result) Authenticated() bool {
	return len(r.Authentic) > 0 && r.Outcome() == verify.Verified
}

// Outcome is the verdict's outcome; a failed transfer has none. Any
// mismatch is Mismatched; Verified needs an accepted digest of the whole
// representation that matched (provesWhole): a Content-Digest of a HEAD's
// or a 304's empty content, or of a 206's part, says nothing of the
// representation. --require-digest fails (ErrUnverified) exactly when
// this is not Verified (verdictError).
func (r *Result) Outcome() verify.Outcome {
	switch {
	case len(r.Verdict.Mismatches()) > 0:
		return verify.Mismatched
	case provesWhole(&r.Verdict, r.contentWhole):
		return verify.Verified
	}
	return verify.Unverified
}
