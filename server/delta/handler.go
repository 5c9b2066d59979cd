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
	log     *slog.Logger

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

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
	return &Handler{dir: stateDir, history: history, maxSize: maxSize, log: log, locks: map[string]*sync.Mutex{}}, nil
}

func (h *Handler) fileLock(key string) *sync.Mutex {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.locks[key]
	if l == nil {
		l = &sync.Mutex{}
		h.locks[key] = l
	}
	return l
}

// etagSuffix is the part of the origin's ETag derived from the sha-256 of
// the bytes (server: "sha256-" + unpadded base64url).
func etagSuffix(sum []byte) string {
	return `sha256-` + base64.RawURLEncoding.EncodeToString(sum) + `"`
}

// BeforeReplace keeps the current version of a file a PUT is replacing.
func (h *Handler) BeforeReplace(cur *server.Representation) {
	if err := h.record(cur); err != nil {
		h.log.Warn("delta history", "file", cur.File, "err", err)
	}
}

// ServeDelta answers a GET with 226 when it asks for a delta-coding (A-IM)
// from a retained version (If-None-Match) and a delta smaller than the
// instance can be made; with 406 when the client refused identity and no
// delta applies; otherwise it leaves the response to the server.
func (h *Handler) ServeDelta(w http.ResponseWriter, r *http.Request, cur *server.Representation) bool {
	if r.Method != http.MethodGet || cur.Encoding != "" {
		return false
	}
	if err := h.record(cur); err != nil {
		h.log.Warn("delta history", "file", cur.File, "err", err)
	}
	aim := parseAIM(r.Header.Values("A-IM"))
	if len(aim) == 0 {
		return false
	}
	codings := accepted(aim, deltaCodings)
	tags := parseETags(r.Header.Values("If-None-Match"))
	for _, t := range tags {
		if t == cur.ETag {
			return false // the server answers 304
		}
	}
	var base version
	found := false
	for _, t := range tags {
		if base, found = h.find(cur.File, t); found {
			break
		}
	}
	if len(codings) == 0 || !found || r.Header.Get("Range") != "" {
		return h.notAcceptable(w, aim, "no delta-coding can be applied")
	}
	d, err := h.bestDelta(cur, base, codings, aim)
	if err != nil {
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
	want := verify.ParseWantField(verify.WantContentDigest, r.Header.Values(verify.WantContentDigest))
	if want.Present && want.Ignored == "" {
		if algs := verify.Choose(want.Prefs, "sha-256"); len(algs) > 0 {
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
