package server

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

// Signature labels: the RFC 9421 signature over the status, type and
// digest fields, and the signature-based SRI profile Chromium verifies
// (https://wicg.github.io/signature-based-sri/#profile).
const (
	SignatureLabel = "sig1"
	IntegrityLabel = "sri"
	// IntegrityTag is the tag parameter of the SRI profile.
	IntegrityTag = "ed25519-integrity"
)

// DefaultSignatureValidity is how long after created a signature expires.
const DefaultSignatureValidity = time.Hour

// signedFields are the response fields a signature covers, in this order,
// when the header carries them. Fields sent as trailers are not covered:
// they are not in the header when it is signed, and a signature over a
// trailer (the tr parameter) would itself have to follow the body.
// Content-Encoding is covered too: Repr-Digest and Content-Digest are of
// the encoded bytes, and prove what a client decodes only with the coding.
var signedFields = []string{"content-type", "content-encoding", "repr-digest", "content-digest", "unencoded-digest"}

// digestField says a signed field is a digest field.
func digestField(name string) bool {
	switch name {
	case "repr-digest", "content-digest", "unencoded-digest":
		return true
	}
	return false
}

// signer signs responses (WithSigningKey) and keeps the signature fields
// per covered values, so that a file's responses reuse one signature until
// it is refresh old.
type signer struct {
	s         httpsig.Signer
	keyID     string
	integrity string        // keyid of the SRI profile (base64 Ed25519 public key); "" for other keys
	validity  time.Duration // expires = created + validity; 0: no expires
	refresh   time.Duration // a cached signature older than this is made anew
	now       func() time.Time

	mu    sync.Mutex
	cache map[string]signature
	signs atomic.Int64 // signatures made, for tests and the bench
}

// signature is the Signature-Input and Signature values of one response.
type signature struct {
	input, value string
	created      time.Time
}

// maxSignatures bounds the cache; it is emptied when full.
const maxSignatures = 4096

// WithSigningKey signs every response whose header carries a digest field
// (RFC 9421): label sig1 covers "@status", "@path";req, "@query";req, content-type,
// content-encoding and the digest fields sent in the header, with created,
// expires (validity after it; 0: none) and keyid. With an Ed25519 key, responses carry Unencoded-Digest
// and a second signature, label sri, in the signature-based SRI profile:
// ("unencoded-digest";sf) with keyid the base64 public key and tag
// "ed25519-integrity". alg is needed for RSA keys only.
func WithSigningKey(priv any, alg, keyID string, validity time.Duration) Option {
	return func(c *config) error {
		s, err := httpsig.NewSigner(alg, priv)
		if err != nil {
			return err
		}
		if keyID == "" {
			return fmt.Errorf("signing key: empty key id")
		}
		if validity < 0 {
			return fmt.Errorf("signature validity %s: want a positive duration or 0", validity)
		}
		sg := &signer{s: s, keyID: keyID, validity: validity, now: time.Now, cache: map[string]signature{}}
		sg.refresh = 5 * time.Minute
		if validity > 0 {
			sg.refresh = min(sg.refresh, validity/4)
		}
		if k, ok := priv.(ed25519.PrivateKey); ok {
			sg.integrity = base64.StdEncoding.EncodeToString(k.Public().(ed25519.PublicKey))
		}
		c.signer = sg
		return nil
	}
}

// Signatures returns how many signatures the server has made (cache misses
// count, reuses do not).
func (s *Server) Signatures() int64 {
	if s.cfg.signer == nil {
		return 0
	}
	return s.cfg.signer.signs.Load()
}

// signing wraps h so that each response is signed when its header is final.
func (s *Server) signing(h http.Handler) http.Handler {
	sg := s.cfg.signer
	if sg == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &signWriter{ResponseWriter: w, sg: sg, log: s, path: r.URL}
		h.ServeHTTP(sw, r)
	})
}

// setUnencoded adds Unencoded-Digest (the digest of the representation
// without content coding) to a signed response, with the algorithms of its
// Repr-Digest that SRI knows (unencodedDigests), unless already set.
func (s *Server) setUnencoded(w http.ResponseWriter, r *http.Request, rep *Representation, plan *digestPlan) error {
	sw, ok := w.(*signWriter)
	if !ok || len(plan.repr) == 0 || sw.Header().Get(verify.UnencodedDigest) != "" {
		return nil
	}
	var algs []verify.Algorithm
	for _, d := range plan.repr {
		if a, ok := verify.Lookup(d.Algorithm); ok && (a.Key == "sha-256" || a.Key == "sha-512") {
			algs = append(algs, a)
		}
	}
	id := rep
	if rep.identity != nil {
		id = rep.identity
	}
	ds, err := unencodedDigests(r.Context(), id, algs)
	if err != nil {
		return err
	}
	sw.Header().Set(verify.UnencodedDigest, formatRepr(ds))
	return nil
}

// unencodedDigests are the digests of Unencoded-Digest over id, the
// identity of the representation sent, with algs (those of its Repr-Digest
// the caller sends; sha-256 when none). While id's digests are not trusted
// (its file has not settled, server/identity.go) only the sha-256 is known
// to be of the bytes the body decodes to: the variant was built from bytes
// that had it, and another algorithm would be hashed from the file as it
// is now. Trusted is asked again after the digests are got: hashing an
// algorithm not known yet reads the file now, and a file written since it
// was opened (its ID changed) makes that pass, and id, untrusted. The one
// rule for setUnencoded and unencodedDigest.
func unencodedDigests(ctx context.Context, id *Representation, algs []verify.Algorithm) ([]verify.Digest, error) {
	sha := []verify.Algorithm{sha256Alg}
	if len(algs) == 0 || !id.Trusted() {
		return id.Digests(ctx, sha)
	}
	ds, err := id.Digests(ctx, algs)
	if err != nil || id.Trusted() {
		return ds, err
	}
	return id.Digests(ctx, sha)
}

// signWriter signs the response when its header is written.
type signWriter struct {
	http.ResponseWriter
	sg    *signer
	log   *Server
	path  *url.URL // the request's URL, whose path and query sig1 covers ("@path";req, "@query";req)
	wrote bool
}

// Unwrap lets http.ResponseController reach the connection.
func (w *signWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *signWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.wrote = true
		w.sign(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *signWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// ReadFrom keeps the connection's sendfile path.
func (w *signWriter) ReadFrom(src io.Reader) (int64, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{w.ResponseWriter}, src)
}

// sign adds the signature fields for a response with status code.
func (w *signWriter) sign(code int) {
	// The header is final: every status that does not carry the
	// representation was written by problem, which dropped its fields
	// (DropRepresentationFields), so what is signed is what is sent.
	h := w.Header()
	sig, ok, err := w.sg.signatureFor(code, h, w.path)
	if err != nil {
		w.log.cfg.logger.Error("signing the response failed", "status", code, "err", err)
		return
	}
	if ok {
		h["Signature-Input"] = append(h["Signature-Input"], sig.input)
		h["Signature"] = append(h["Signature"], sig.value)
	}
}

// representationStatus: the statuses whose digest fields describe the
// selected representation.
func representationStatus(code int) bool {
	switch code {
	case http.StatusOK, http.StatusPartialContent, http.StatusIMUsed, http.StatusNotModified:
		return true
	}
	return false
}

// signatureFor returns the signature fields for a response, from the cache
// while fresh; ok is false when the header carries no digest field.
func (sg *signer) signatureFor(code int, h http.Header, u *url.URL) (signature, bool, error) {
	key, ok := coveredKey(code, h, u.EscapedPath()+"?"+u.RawQuery)
	if !ok {
		return signature{}, false, nil
	}
	now := sg.now()
	sg.mu.Lock()
	sig, hit := sg.cache[key]
	sg.mu.Unlock()
	if hit && now.Sub(sig.created) < sg.refresh && !now.Before(sig.created) {
		return sig, true, nil
	}
	sig, err := sg.make(code, h, u, now.Truncate(time.Second))
	if err != nil {
		return signature{}, false, err
	}
	sg.mu.Lock()
	if len(sg.cache) >= maxSignatures {
		clear(sg.cache)
	}
	sg.cache[key] = sig
	sg.mu.Unlock()
	return sig, true, nil
}

// coveredKey is the status, the request's target (path and query: "/f"
// and "/f?" both have "@query" "?") and the values of the fields a
// signature would cover: equal keys give equal signature bases (but for
// created). ok is false when no digest field is in the header.
func coveredKey(code int, h http.Header, target string) (string, bool) {
	var b strings.Builder
	b.WriteString(strconv.Itoa(code))
	b.WriteByte(0)
	b.WriteString(target)
	digest := false
	for _, name := range signedFields {
		vs := h.Values(name)
		if digestField(name) && len(vs) > 0 {
			digest = true
		}
		b.WriteByte(0)
		b.WriteString(strings.Join(vs, "\x01"))
	}
	return b.String(), digest
}

// make signs the covered fields of h anew. sig1 also covers the request's
// path and query, so that a signed response of one file cannot be passed
// off as another file of the same origin, nor the answer to one query as
// the answer to another. A query "@query" cannot carry (a raw byte outside
// printable ASCII, which a request target should not hold: RFC 9112
// §3.2) is left out, and the client says the query is not bound.
func (sg *signer) make(code int, h http.Header, u *url.URL, created time.Time) (signature, error) {
	ids := []string{"@status", `"@path";req`}
	if printableASCII(u.RawQuery) {
		ids = append(ids, `"@query";req`)
	}
	fields := http.Header{}
	for _, name := range signedFields {
		if vs := h.Values(name); len(vs) > 0 {
			ids = append(ids, name)
			fields[http.CanonicalHeaderKey(name)] = vs
		}
	}
	p, err := sg.params(ids, sg.keyID, "", created)
	if err != nil {
		return signature{}, err
	}
	req := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
	m := httpsig.ResponseMessage(&http.Response{StatusCode: code, Header: fields}, req)
	if _, err := httpsig.Sign(m, SignatureLabel, p, sg.s); err != nil {
		return signature{}, err
	}
	sg.signs.Add(1)
	if sg.integrity != "" && len(fields.Values(verify.UnencodedDigest)) > 0 {
		p, err := sg.params([]string{`"unencoded-digest";sf`}, sg.integrity, IntegrityTag, created)
		if err != nil {
			return signature{}, err
		}
		if _, err := httpsig.Sign(m, IntegrityLabel, p, sg.s); err != nil {
			return signature{}, err
		}
		sg.signs.Add(1)
	}
	return signature{input: strings.Join(fields.Values("Signature-Input"), ", "),
		value: strings.Join(fields.Values("Signature"), ", "), created: created}, nil
}

func (sg *signer) params(ids []string, keyID, tag string, created time.Time) (httpsig.Params, error) {
	cs, err := httpsig.ParseComponents(ids)
	if err != nil {
		return httpsig.Params{}, err
	}
	p := httpsig.Params{Components: cs, Created: created, KeyID: keyID, Tag: tag}
	if sg.validity > 0 {
		p.Expires = created.Add(sg.validity)
	}
	return p, nil
}

// printableASCII says s holds only printable ASCII bytes.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
