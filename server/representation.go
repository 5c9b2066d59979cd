package server

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/hdig/hdig/verify"
)

// Content is the bytes of a representation: an *os.File for the identity
// representation of a file (so net/http can use sendfile) or an in-memory
// reader for encoded variants and directory listings.
type Content interface {
	io.ReadSeeker
	io.ReaderAt
}

// Representation is the selected representation of a resource for one
// request: the identity bytes of a file, one of its encoded variants, or a
// directory listing. It is valid for the duration of the request.
type Representation struct {
	// Path is the cleaned URL path, e.g. "/docs/a.json".
	Path string
	// File is the slash-separated name inside the served directory.
	File string
	// ContentType is the media type sent in Content-Type.
	ContentType string
	// Encoding is the content coding ("gzip", "br", "zstd"), "" for identity.
	Encoding string
	// Size is the length of the representation data in bytes.
	Size int64
	// ModTime is the file's modification time (Last-Modified).
	ModTime time.Time
	// ETag is the strong entity tag, derived from the bytes: "sha256-…".
	ETag string
	// Content reads the representation data.
	Content Content

	sums     *entry
	vary     bool            // the type is compressible: Vary: Accept-Encoding
	identity *Representation // for an encoded variant, the identity

	// For the identity of a file: its cache key (with its fileid.ID), the
	// open file, how a hash pass is confirmed, and whether every digest
	// this request used is trusted (else the bytes sent are checked).
	key     fileKey
	file    *os.File
	proof   *proof
	trusted bool
	// immutable: the bytes are a snapshot in memory (smallfiles.go),
	// which no write to the file can reach.
	immutable bool
	snap      *snapshot // the snapshot of an immutable representation
	// stream: sent before its digests are known, which come as trailers
	// (stream.go); it has no ETag.
	stream     bool
	streamAlgs []verify.Algorithm // what the guard hashes for the trailers
	used       usedDigests        // the digests this request used, one per algorithm
	usedBuf    [2]verify.Digest   // room for used without an allocation
	reopen     func() (*os.File, error)
	waits      []func() // run before the last byte of the body (BeforeEnd)
}

// Reopen opens the file of an identity representation again, for use
// after the request (a background copy). It fails when the file is no
// longer the version this representation is (fileid.Same), or when the
// representation is not a file's identity.
func (r *Representation) Reopen() (*os.File, error) {
	if r.reopen == nil {
		return nil, errors.New("not the identity of a file")
	}
	return r.reopen()
}

// BeforeEnd registers wait to run before the last byte of a 200 or 206 of
// a file's identity is sent: work begun for this request (keeping the
// version for deltas) is done by the time the client has the whole body,
// while the first byte does not wait for it.
func (r *Representation) BeforeEnd(wait func()) { r.waits = append(r.waits, wait) }

// Trusted reports whether every digest this request used is known to cover
// the file's bytes (see server/identity.go); a caller that sends them over
// bytes it produced otherwise (a delta) checks those bytes against
// UsedDigests first.
func (r *Representation) Trusted() bool { return len(r.used) == 0 || r.trusted }

// UsedDigests returns the digests this request has used so far (ETag,
// Repr-Digest, Content-Digest), each algorithm once.
func (r *Representation) UsedDigests() []verify.Digest {
	return append([]verify.Digest(nil), r.used...)
}

// usedDigests are the digests a request used, at most one per algorithm,
// in the order first used: a request uses one or two, which a slice holds
// without the allocation of a map.
type usedDigests []verify.Digest

// get returns the value used for the algorithm key alg.
func (u usedDigests) get(alg string) ([]byte, bool) {
	for _, d := range u {
		if d.Algorithm == alg {
			return d.Value, true
		}
	}
	return nil, false
}

// Digests returns the digests of the representation data for the given
// algorithms. They are computed once per file version and cached; the
// context aborts a computation in progress.
//
// Within one request a representation answers each algorithm with one
// value, the one it first used, so that what the guard checks at the end
// is what was sent.
func (r *Representation) Digests(ctx context.Context, algs []verify.Algorithm) ([]verify.Digest, error) {
	if len(r.used) == 0 {
		r.used, r.trusted = r.usedBuf[:0], true
	}
	var missing []verify.Algorithm
	for i, a := range algs {
		if _, ok := r.used.get(a.Key); !ok {
			if missing == nil && i == len(algs)-1 {
				missing = algs[i:] // the common case: no copy
				break
			}
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		ds, trusted, err := r.sums.digests(ctx, r.Content, r.Size, missing, r.proof)
		if err != nil {
			return nil, err
		}
		r.trusted = r.trusted && trusted
		for _, d := range ds {
			if _, ok := r.used.get(d.Algorithm); !ok {
				r.used = append(r.used, d)
			}
		}
	}
	out := make([]verify.Digest, len(algs))
	for i, a := range algs {
		v, _ := r.used.get(a.Key)
		out[i] = verify.Digest{Algorithm: a.Key, Value: v}
	}
	return out, nil
}

// etagFor derives a strong entity tag from a sha-256 digest.
func etagFor(sha256 []byte) string {
	return `"sha256-` + base64.RawURLEncoding.EncodeToString(sha256) + `"`
}

// DeltaHandler is the hook for the RFC 3229 delta step (A-IM, If-None-Match
// → 226 IM Used). The server calls ServeDelta for each GET and HEAD after
// selecting the representation and before evaluating preconditions and
// ranges; the response headers already hold ETag, Content-Type, Vary and
// Repr-Digest of the selected (current) representation. ServeDelta returns
// false to let the server answer normally, true when it wrote the response
// itself, and an error, without writing anything, for the server to answer
// with instead: a *Refusal as its problem details, any other as a 500
// (logged). Every error response has one writer (problem). r.Method tells HEAD from GET; server/delta leaves HEAD to the
// server (226 is defined for GET only). rival is the size of the body the
// server sends when ServeDelta returns false: cur's, or, when the server
// selected an encoded variant of cur (a compression, a dcb or dcz
// dictionary coding), the variant's; a 226 is worth sending only when its
// body is smaller.
type DeltaHandler interface {
	ServeDelta(w http.ResponseWriter, r *http.Request, cur *Representation, rival int64) (bool, error)
}

// Refusal is the error a DeltaHandler returns to have the server answer
// with problem details of Status (406 when identity was refused and no
// delta applies, RFC 3229 §10.5.3) and Detail.
type Refusal struct {
	Status int
	Detail string
}

func (e *Refusal) Error() string { return http.StatusText(e.Status) + ": " + e.Detail }

// ReplaceObserver may be implemented by a DeltaHandler that keeps history:
// the server calls BeforeReplace with the current representation of a file
// just before a verified PUT replaces it.
type ReplaceObserver interface {
	BeforeReplace(cur *Representation)
}
