package fetch

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
)

// Request describes one hdig fetch.
type Request struct {
	URL    string
	Method string // "" means GET, or POST when Body is set
	Header http.Header
	Body   *Body
	// Omit names the fields the request goes without (-H 'Name:', as
	// curl's): build removes them last, so no field hdig or net/http adds
	// itself is sent under those names.
	Omit []string

	// WantRepr and WantContent are sent as Want-Repr-Digest and
	// Want-Content-Digest; nil sends nothing.
	WantRepr, WantContent []verify.Pref
	// Compressed sends Accept-Encoding and decodes the body for output
	// after the encoded bytes were verified.
	Compressed bool
	// Policy says which algorithms count as proof.
	Policy verify.Policy
	// RequireDigest fails with ErrUnverified unless an accepted digest
	// verified the whole representation.
	RequireDigest bool
	// Trust, when set, demands a valid signature by a trusted key over a
	// digest that verified the bytes (authentic.go): ErrSignature when one
	// is invalid, ErrUnsigned when none proves them.
	Trust *Trust
	// Retry is how many times a failed attempt is retried.
	Retry int
	// RetryDelay, when positive, is the wait before each retry instead of
	// the doubling backoff (--retry-delay).
	RetryDelay time.Duration
	// KeepErrorBody keeps the body of a status >= 400 in the StatusError,
	// up to MaxErrorBody bytes (--fail-with-body).
	KeepErrorBody bool
	// Limits bound the body written (--max-filesize, --max-ratio).
	Limits Limits
	// Ranges, when set, are sent as Range (-r). A 206 must answer exactly
	// them: a single part's Content-Range, or each part of a
	// multipart/byteranges body, whose bytes are written one after another.
	Ranges []ByteRange

	// Expected are the user's own digests of the bytes written (--expect,
	// --checksum-file): Trusted fields, checked wherever Repr-Digest is.
	Expected []verify.DigestField
	// ChecksumMode sends x-amz-checksum-mode: ENABLED (Amazon S3 then
	// sends x-amz-checksum-*); it is sent to *.amazonaws.com regardless.
	ChecksumMode bool

	// Delta, when set, makes Get use a base-version cache (RFC 3229).
	Delta *Delta
	// sent are the digests of Body, computed before sending it.
	sent []verify.Digest
	// BeforeCommit runs after the bytes verified and before the sink
	// releases them.
	BeforeCommit func(*Result) error

	// Progress, when set, sees the body of Client.Get's response arrive,
	// as one piece (Client.Download takes DownloadOptions.Progress
	// instead); the caller calls Finish.
	Progress Progress

	// OnRequest sees each request as it goes out (redirect hops and
	// cookies included, credentials removed where they are not sent);
	// OnResponse each final response received (for -v).
	OnRequest  func(*http.Request)
	OnResponse func(*http.Response)
	// OnPart, with Ranges, sees the Content-Range of each part of a 206
	// (the one of a single-part answer, each of a multipart body) before
	// the part's bytes are written, those of the part before all written:
	// parts may come in another order than asked, or fewer (RFC 9110
	// §15.3.7). An error ends the body.
	OnPart func(ContentRange) error

	// intercept may take over a response (226, 304) before the plain
	// body handling; plain is the request to repeat when what it took
	// over turns out unusable (errDeltaFailed).
	intercept func(context.Context, *http.Response, Sink, *Result) (bool, error)
	plain     *Request
	// bases is the URL whose cached versions this request offers ("":
	// none), to its origin only (basesWithheld).
	bases string
	// dict is the dictionary this request offers (RFC 9842), to decode a
	// dcb or dcz answer with.
	dict *dictOffer
}

// AcceptEncoding is sent with --compressed.
const AcceptEncoding = "gzip, br, zstd, deflate"

// conditionFields are the preconditions of RFC 9110 §13.1.
var conditionFields = []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range"}

// Conditional says the caller set a precondition of its own: the request
// is sent as one conditional request, without the cache's If-None-Match,
// and a 304 means the caller's copy is current (nothing is written).
func (r *Request) Conditional() bool {
	for _, k := range conditionFields {
		if r.Header.Get(k) != "" {
			return true
		}
	}
	return false
}

// Partial says the request asks for ranges (-r or a Range header).
func (r *Request) Partial() bool { return len(r.Ranges) > 0 || r.Header.Get("Range") != "" }

// build makes the http.Request for one attempt.
func (r *Request) build(method string) (*http.Request, error) {
	var body io.ReadCloser
	if r.Body != nil {
		rc, err := r.Body.Open()
		if err != nil {
			return nil, err
		}
		body = rc
	}
	req, err := http.NewRequest(method, r.URL, body)
	if err != nil {
		if body != nil {
			body.Close()
		}
		return nil, err
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Host = req.Header.Get("Host") // -H 'Host: NAME', as curl; net/http writes no Host of the header map
	if u := req.URL.User; u != nil && req.Header.Get("Authorization") == "" {
		// As a field, as -u's: a redirect to the same origin carries it
		// too (net/http makes Basic auth of userinfo for one request);
		// credentialGuard keeps it from any other origin.
		pass, _ := u.Password()
		req.SetBasicAuth(u.Username(), pass)
	}
	if !given(req.Header, "User-Agent") {
		req.Header.Set("User-Agent", "hdig")
	}
	if len(r.WantRepr) > 0 && !given(req.Header, verify.WantReprDigest) {
		req.Header.Set(verify.WantReprDigest, verify.FormatWant(r.WantRepr))
	}
	if len(r.WantContent) > 0 && !given(req.Header, verify.WantContentDigest) {
		req.Header.Set(verify.WantContentDigest, verify.FormatWant(r.WantContent))
	}
	if len(r.Ranges) > 0 && req.Header.Get("Range") == "" {
		req.Header.Set("Range", httpfield.FormatRanges(r.Ranges))
	}
	if checksumModeFor(r.URL, r.ChecksumMode) && !given(req.Header, verify.AmzChecksumMode) {
		req.Header.Set(verify.AmzChecksumMode, "ENABLED")
	}
	if r.Compressed && !given(req.Header, "Accept-Encoding") {
		req.Header.Set("Accept-Encoding", AcceptEncoding)
	}
	OmitFields(req.Header, r.Omit)
	if r.Body != nil {
		req.ContentLength = r.Body.Size
		if req.ContentLength == 0 {
			req.Body = http.NoBody
		}
		req.GetBody = func() (io.ReadCloser, error) { return r.Body.Open() }
	}
	return req, nil
}

// method is the request method.
func (r *Request) method() string {
	switch {
	case r.Method != "":
		return strings.ToUpper(r.Method)
	case r.Body != nil:
		return http.MethodPost
	}
	return http.MethodGet
}

// algorithms are the digests to compute over a response body: the ones
// that can be compared. Every supported algorithm the fields name, the
// user's (--expect, --checksum-file), and with a base-version cache
// sha-256, which names the bytes stored there (Result.SHA256). What the policy accepts or Want-* asks for is
// added only where a digest may still come in a trailer (withTrailer):
// hashing what nothing will be compared with is wasted CPU.
func (r *Request) algorithms(fields ...verify.DigestField) []verify.Algorithm {
	want := map[string]bool{"sha-256": r.Delta != nil && r.Delta.Cache != nil}
	for _, f := range fields {
		for _, d := range f.Digests {
			want[d.Algorithm] = true
		}
	}
	for _, a := range r.expectedAlgorithms() {
		want[a.Key] = true
	}
	return pick(want)
}

// mayTrail are the algorithms a trailer may name when the request
// advertised trailers (TE: trailers) but the response declared none: those
// Want-* asked for and the policy accepts.
func (r *Request) mayTrail() map[string]bool {
	want := map[string]bool{}
	for _, p := range append(append([]verify.Pref{}, r.WantRepr...), r.WantContent...) {
		if p.Weight > 0 {
			want[p.Algorithm] = true
		}
	}
	for _, a := range r.Policy.Accept {
		want[a] = true
	}
	return want
}

// pick lists the algorithms named in want, in the registry's order.
func pick(want map[string]bool) []verify.Algorithm {
	var algs []verify.Algorithm
	for _, a := range verify.All {
		if want[a.Key] {
			algs = append(algs, a)
		}
	}
	return algs
}

// given says h has field k, even empty (-H 'Name;'): hdig then adds no
// value of its own.
func given(h http.Header, k string) bool {
	_, ok := h[k]
	return ok
}

// Omits says the request goes without field k (Request.Omit).
func (r *Request) Omits(k string) bool {
	return slices.Contains(r.Omit, http.CanonicalHeaderKey(k))
}

// OmitFields removes the fields named from h. A User-Agent is kept empty
// instead: net/http sends its own when h has none, and writes no empty
// one.
func OmitFields(h http.Header, names []string) {
	for _, k := range names {
		h.Del(k)
		if http.CanonicalHeaderKey(k) == "User-Agent" {
			h["User-Agent"] = []string{""}
		}
	}
}
