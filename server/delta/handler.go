// Package delta is the reference origin's RFC 3229 delta step: it keeps
// earlier versions of the files it serves and answers a GET that carries
// A-IM and an If-None-Match naming a retained version with 226 IM Used and
// a delta from that version. It plugs into server.New with server.WithDelta.
package delta

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/internal/keyset"
	"github.com/hdig/hdig/internal/ownfile"
	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/server"
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
	log      *slog.Logger

	// encodes bounds the deltas being made at once: each encode costs a
	// core and up to a few hundred MiB (patch's window, index and text
	// limits), and any client can ask for one. Requests wait for a slot
	// (or until they are cancelled); cached deltas need none.
	encodes chan struct{}

	mu    sync.Mutex
	locks map[string]*keyLock // in use only: removed when the last holder unlocks

	// The history, in memory (history.go, budget.go, record.go).
	idxMu      sync.Mutex
	idle       *sync.Cond            // on idxMu: a recording finished
	files      map[string]*fileIndex // by served file name
	order      *list.List            // of *version, oldest recording first
	total      int64                 // bytes of all retained versions
	refs       map[string]int        // retained versions by ETag
	deltasFrom map[string][]string   // delta file names by base sha-256 (hex)
	jobs       map[string]*job       // recordings waiting or in progress
	copies     chan struct{}         // bounds the copies running at once

	// Deltas made off the request path (background.go).
	rateMu     sync.Mutex
	encodeRate int64 // bytes of base and target encoded per second
	sendRate   int64 // bytes per second a client is assumed to receive
	pinned     bool  // the rates were set: not measured
	bgBusy     atomic.Bool
	bg         sync.WaitGroup
	bgMu       sync.Mutex         // orders starting a job (goBackground) and Close
	bgCtx      context.Context    // of the background encodes: done after Close
	stopBg     context.CancelFunc // cancels bgCtx

	// flat holds the ETags of versions hdig-vcdiff-inflated gave no delta
	// for (no zlib stream to expand, or a failure): it is not tried again.
	flat keyset.Set
	// unmade holds the names of deltas their coding cannot make (diff -e
	// of binary bytes, a limit): each attempt reads both versions whole,
	// and any client can ask again.
	unmade keyset.Set

	// checked holds the delta files (made, or found in the state
	// directory) seen to rebuild their target, by path, with the file ID
	// they had then: a file written since (a disk error, a crash before
	// its bytes reached the disk, another process) is checked again.
	checkedMu sync.Mutex
	checked   map[string]fileid.ID

	// refused holds the blobs logged as refused (refused.go).
	refused keyset.Set
}

// maxChecked bounds Handler.checked; it is emptied when full.
const maxChecked = 1 << 14

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
	// What it holds is trusted (the versions deltas are made from): it
	// must be the user's alone to write.
	if err := ownfile.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	for _, sub := range []string{"files", "blobs", "deltas"} {
		if err := ownfile.Mkdir(filepath.Join(stateDir, sub), 0o700); err != nil {
			return nil, err
		}
	}
	h := &Handler{dir: stateDir, history: history, maxSize: maxSize, maxTotal: DefaultMaxTotal, log: log,
		encodes: make(chan struct{}, maxEncodes()), locks: map[string]*keyLock{},
		files: map[string]*fileIndex{}, order: list.New(), refs: map[string]int{},
		deltasFrom: map[string][]string{}, jobs: map[string]*job{}, copies: make(chan struct{}, maxEncodes()),
		encodeRate: DefaultEncodeRate, sendRate: DefaultSendRate}
	h.idle = sync.NewCond(&h.idxMu)
	h.bgCtx, h.stopBg = context.WithCancel(context.Background())
	h.loadIndexes()
	h.scanDeltas()
	return h, nil
}

// scanDeltas lists the deltas kept by base, once at start, and removes
// those not named by the sha-256 of both ends (made by older versions,
// which keyed them by ETag and did not check what they rebuild).
func (h *Handler) scanDeltas() {
	entries, _ := os.ReadDir(filepath.Join(h.dir, "deltas"))
	for _, e := range entries {
		name := e.Name()
		base, rest, _ := strings.Cut(name, "-")
		target, _, _ := strings.Cut(rest, ".")
		if len(base) != 64 || len(target) != 64 || !isHex(base) || !isHex(target) {
			os.Remove(filepath.Join(h.dir, "deltas", name))
			continue
		}
		h.deltasFrom[base] = append(h.deltasFrom[base], name)
	}
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
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

// StateDir returns the directory the history is kept in, which the server
// never serves (server.StateDirer).
func (h *Handler) StateDir() string { return h.dir }

// SetMaxTotal bounds the bytes of all retained versions together; the
// oldest are forgotten first. n <= 0 keeps DefaultMaxTotal.
func (h *Handler) SetMaxTotal(n int64) {
	if n <= 0 {
		return
	}
	h.idxMu.Lock()
	defer h.idxMu.Unlock()
	h.maxTotal = n
	// A history kept under a larger budget (before a restart) is cut to
	// this one now, not at the next version recorded; the newest version
	// stays, as insert keeps the one it records.
	touched := map[*fileIndex]bool{}
	var newest *version
	if el := h.order.Back(); el != nil {
		newest = el.Value.(*version)
	}
	h.trim(newest, touched)
	if err := h.saveAll(touched); err != nil {
		h.log.Warn("delta history", "err", err)
	}
}

// BeforeReplace keeps the current version of a file a PUT is replacing.
func (h *Handler) BeforeReplace(cur *server.Representation) {
	if err := h.add(cur.File, cur.ETag, cur.Size, cur.Content); err != nil {
		h.log.Warn("delta history", "file", cur.File, "err", err)
	}
}

// ServeDelta answers a GET with 226 when it asks for a delta-coding (A-IM)
// from a retained version (If-None-Match) and a delta smaller than the
// instance can be made, and smaller, in the content coding that makes it
// smallest, than the rival bytes the server sends otherwise (the instance,
// or its compressed or dictionary-coded variant); with a 406 Refusal, for
// the server to write, when the client refused identity and no delta
// applies; otherwise it leaves the response to the server.
//
// A HEAD is always left to the server (200, or 304 as for any HEAD): 226
// is defined for GET only (RFC 3229 §10.4.1), and a HEAD should not make
// the origin compute a delta it will not send.
func (h *Handler) ServeDelta(w http.ResponseWriter, r *http.Request, cur *server.Representation, rival int64) (bool, error) {
	if r.Method != http.MethodGet || cur.Encoding != "" {
		return false, nil
	}
	if !preconditionsHold(r, cur) {
		return false, nil // the server answers 412, as for any GET
	}
	if wait := h.recordAsync(r.Context(), cur); wait != nil {
		cur.BeforeEnd(wait)
	}
	aim := patch.ParseAIM(r.Header.Values("A-IM"))
	if len(aim) == 0 {
		return false, nil
	}
	codings := h.inflatable(cur, accepted(aim, deltaCodings))
	tags, err := httpfield.ParseETags(r.Header.Values("If-None-Match"))
	if err != nil {
		return false, nil // the server answers the request without a delta
	}
	for _, t := range tags {
		// If-None-Match compares weakly (RFC 9110 §13.1.2), and "*"
		// matches any current representation: the server answers 304.
		if t == "*" || strings.TrimPrefix(t, "W/") == cur.ETag {
			return false, nil
		}
	}
	base, found := h.find(cur.File, tags)
	// A file over maxSize gets no deltas (New), also from an earlier,
	// smaller version kept: its encode would be as unbounded as the file.
	if len(codings) == 0 || !found || cur.Size > h.maxSize || r.Header.Get("Range") != "" {
		return false, notAcceptable(aim, "no delta-coding can be applied")
	}
	if !refusesIdentity(aim) && !h.stored(cur, base, codings) && h.slow(cur, base, rival) {
		// Sending the file is quicker than making the delta first.
		h.encodeLater(cur, base, codings, aim)
		return false, nil
	}
	d, err := h.bestDelta(r.Context(), cur, base, codings, aim)
	if err != nil {
		if r.Context().Err() != nil {
			return false, nil // the client is gone; the server's answer fails quietly
		}
		level := slog.LevelWarn
		if errors.Is(err, errUnmade) {
			level = slog.LevelDebug // warned when it failed
		}
		h.log.Log(r.Context(), level, "delta", "file", cur.File, "base", base.ETag, "err", err)
		return false, notAcceptable(aim, "the delta could not be made")
	}
	if d.size >= cur.Size && !refusesIdentity(aim) {
		return false, nil // a delta no smaller than the instance is not worth it
	}
	if !cur.Trusted() {
		// The digests sent were hashed from a file that had not settled:
		// the delta must rebuild to each of them, not only to the ETag.
		if err := h.check(d, cur, base); err != nil {
			h.log.Warn("delta", "file", cur.File, "base", base.ETag, "err", err)
			return false, notAcceptable(aim, "the delta could not be made")
		}
	}
	sent := h.smallestCoding(r.Context(), aim, d)
	if sent.size >= rival && !refusesIdentity(aim) {
		return false, nil // the server's answer is smaller
	}
	f, err := h.checkOnce(sent, cur, base)
	if err != nil {
		h.log.Warn("delta", "file", cur.File, "base", base.ETag, "err", err)
		os.Remove(sent.path) // made again by a later request
		return false, notAcceptable(aim, "the delta could not be made")
	}
	defer f.Close()
	if sendHook != nil {
		sendHook(sent.path)
	}
	if err := h.write(w, r, f, sent, base); err != nil {
		return false, err
	}
	return true, nil
}
