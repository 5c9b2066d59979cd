// Package delta is the reference origin's RFC 3229 delta step: it keeps
// earlier versions of the files it serves and answers a GET that carries
// A-IM and an If-None-Match naming a retained version with 226 IM Used and
// a delta from that version. It plugs into server.New with server.WithDelta.
package delta

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// Defaults.
const (
	// DefaultHistory is how many versions of each file are kept (--history).
	DefaultHistory = 4
	// DefaultMaxSize is the largest file whose versions are kept.
	DefaultMaxSize = 256 << 20
)

// Handler implements server.DeltaHandler and server.ReplaceObserver.
type Handler struct {
	dir     string
	history int
	maxSize int64
	// maxTotal bounds the bytes of all retained versions (DefaultMaxTotal);
	// set it with SetMaxTotal before serving.
	maxTotal int64
	budgetMu sync.Mutex
	log      *slog.Logger

	// encodes bounds the deltas being made at once: each encode costs a
	// core and up to a few hundred MiB (patch's window, index and text
	// limits), and any client can ask for one. Requests wait for a slot
	// (or until they are cancelled); cached deltas need none.
	encodes chan struct{}

	mu    sync.Mutex
	locks map[string]*keyLock // in use only: removed when the last holder unlocks
	seen  recorded            // versions known to be in the history
}

// keyLock is a mutex shared by the requests working on one key.
type keyLock struct {
	mu   sync.Mutex
	refs int // holders and waiters; guarded by Handler.mu
}

// maxEncodes is the number of deltas made concurrently.
func maxEncodes() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// New returns a Handler keeping up to history versions per file under
// stateDir (created if needed). Files larger than maxSize (0: DefaultMaxSize)
// get no history and so no deltas.
func New(stateDir string, history int, maxSize int64, log *slog.Logger) (*Handler, error) {
	if history < 1 {
		return nil, fmt.Errorf("history must be at least 1, got %d", history)
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	for _, sub := range []string{"files", "blobs", "deltas"} {
		if err := os.MkdirAll(filepath.Join(stateDir, sub), 0o700); err != nil {
			return nil, err
		}
	}
	return &Handler{dir: stateDir, history: history, maxSize: maxSize, maxTotal: DefaultMaxTotal, log: log,
		encodes: make(chan struct{}, maxEncodes()), locks: map[string]*keyLock{}}, nil
}

// lock locks key (a file name or a delta path) and returns the unlock.
// The lock is dropped from the map when nobody holds or waits for it, so
// the map does not grow with every file and delta ever served.
func (h *Handler) lock(key string) (unlock func()) {
	h.mu.Lock()
	l := h.locks[key]
	if l == nil {
		l = &keyLock{}
		h.locks[key] = l
	}
	l.refs++
	h.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		h.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(h.locks, key)
		}
		h.mu.Unlock()
	}
}

// etagSuffix is the part of the origin's ETag derived from the sha-256 of
// the bytes (server: "sha256-" + unpadded base64url).
func etagSuffix(sum []byte) string {
	return `sha256-` + base64.RawURLEncoding.EncodeToString(sum) + `"`
}

// SetMaxTotal bounds the bytes of all retained versions together; the
// oldest are forgotten first. n <= 0 keeps DefaultMaxTotal.
func (h *Handler) SetMaxTotal(n int64) {
	if n > 0 {
		h.maxTotal = n
	}
}

// BeforeReplace keeps the current version of a file a PUT is replacing.
func (h *Handler) BeforeReplace(cur *server.Representation) {
	if !h.seen.has(cur.File, cur.ETag) {
		if err := h.record(cur); err != nil {
			h.log.Warn("delta history", "file", cur.File, "err", err)
		} else {
			h.seen.set(cur.File, cur.ETag)
		}
	}
}

// ServeDelta answers a GET with 226 when it asks for a delta-coding (A-IM)
// from a retained version (If-None-Match) and a delta smaller than the
// instance can be made; with 406 when the client refused identity and no
// delta applies; otherwise it leaves the response to the server.
//
// A HEAD is always left to the server (200, or 304 as for any HEAD): 226
// is defined for GET only (RFC 3229 §10.4.1), and a HEAD should not make
// the origin compute a delta it will not send.
func (h *Handler) ServeDelta(w http.ResponseWriter, r *http.Request, cur *server.Representation) bool {
	if r.Method != http.MethodGet || cur.Encoding != "" {
		return false
	}
	if !h.seen.has(cur.File, cur.ETag) {
		if err := h.record(cur); err != nil {
			h.log.Warn("delta history", "file", cur.File, "err", err)
		} else {
			h.seen.set(cur.File, cur.ETag)
		}
	}
	aim := parseAIM(r.Header.Values("A-IM"))
	if len(aim) == 0 {
		return false
	}
	codings := accepted(aim, deltaCodings)
	tags := parseETags(r.Header.Values("If-None-Match"))
	for _, t := range tags {
		// If-None-Match compares weakly (RFC 9110 §13.1.2), and "*"
		// matches any current representation: the server answers 304.
		if t == "*" || strings.TrimPrefix(t, "W/") == cur.ETag {
			return false
		}
	}
	base, found := h.load(cur.File).find(tags)
	if len(codings) == 0 || !found || r.Header.Get("Range") != "" {
		return h.notAcceptable(w, aim, "no delta-coding can be applied")
	}
	d, err := h.bestDelta(r.Context(), cur, base, codings, aim)
	if err != nil {
		if r.Context().Err() != nil {
			return false // the client is gone; the server's answer fails quietly
		}
		h.log.Warn("delta", "file", cur.File, "base", base.ETag, "err", err)
		return h.notAcceptable(w, aim, "the delta could not be made")
	}
	if d.size >= cur.Size && !refusesIdentity(aim) {
		return false // a delta no smaller than the instance is not worth it
	}
	h.write(w, r, d, base)
	return true
}

// notAcceptable sends 406 when identity was refused (RFC 3229 §10.5.3),
// else leaves the response to the server.
func (h *Handler) notAcceptable(w http.ResponseWriter, aim []manipulation, why string) bool {
	if !refusesIdentity(aim) {
		return false
	}
	hd := w.Header()
	for _, k := range []string{"Repr-Digest", "Content-Digest", "ETag", "Content-Type"} {
		hd.Del(k)
	}
	hd.Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusNotAcceptable)
	fmt.Fprintf(w, "{\"title\": \"Not Acceptable\", \"status\": 406, \"detail\": %q}\n", "identity;q=0 was asked for, but "+why)
	return true
}

// write sends the 226 with the delta as its body.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, d *made, base version) {
	f, err := os.Open(d.path)
	if err != nil {
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	hd := w.Header()
	hd.Del("Content-Digest")
	// As the server does for its own responses: a Want-Content-Digest that
	// is present but malformed, or refuses sha-256, still gets an answer.
	want := verify.ParseWantField(verify.WantContentDigest, r.Header.Values(verify.WantContentDigest))
	if want.Present {
		algs := verify.Choose(want.Prefs, "sha-256")
		if len(algs) == 0 {
			algs = verify.Choose(want.Prefs, "sha-512")
		}
		if len(algs) > 0 {
			sums, _, err := verify.Sum(f, algs)
			if err == nil {
				hd.Set("Content-Digest", verify.FormatDigests(sums))
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				http.Error(w, "internal server error", http.StatusInternalServerError)
				return
			}
		}
	}
	hd.Set("IM", strings.Join(d.ims, ", "))
	hd.Set("Delta-Base", base.ETag)
	hd.Set("Cache-Control", "no-store, im")
	hd.Set("Content-Length", strconv.FormatInt(d.size, 10))
	hd.Del("Accept-Ranges")
	w.WriteHeader(http.StatusIMUsed)
	if _, err := io.Copy(w, f); err != nil && !errors.Is(err, r.Context().Err()) {
		h.log.Debug("delta write", "err", err)
	}
}
