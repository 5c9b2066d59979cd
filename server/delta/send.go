package delta

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/internal/ownfile"
	"github.com/hdig/hdig/patch"
	"github.com/hdig/hdig/server"
	"github.com/hdig/hdig/verify"
)

// sendHook, when set (by tests), runs after a stored delta was checked and
// before it is sent, with its path.
var sendHook func(path string)

// checkOnce checks, once per version of the file on disk, that the delta
// d (as kept, with its size) applied to base rebuilds the bytes cur's ETag
// names: a delta is served from the state directory by its name alone,
// and the bytes under that name may not be the ones written (a crash
// before they reached the disk, a disk error, another process). It
// returns the file it checked, open at its start: the one to send, as
// another file may be under the name by the time it is sent.
func (h *Handler) checkOnce(d *made, cur *server.Representation, base version) (*os.File, error) {
	f, fi, err := ownfile.OpenRegular(d.path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	if err := h.checkFile(f, fi, d, cur, base); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkFile is checkOnce on the open delta f, whose FileInfo is fi.
func (h *Handler) checkFile(f *os.File, fi os.FileInfo, d *made, cur *server.Representation, base version) error {
	if !ownfile.Own(fi) {
		return errors.New(ownfile.Why(fi))
	}
	if fi.Size() != d.size {
		return fmt.Errorf("delta %s changed on disk", filepath.Base(d.path))
	}
	id := fileid.Of(fi)
	h.checkedMu.Lock()
	prev, ok := h.checked[d.path]
	h.checkedMu.Unlock()
	if ok && fileid.Same(prev, id) {
		return nil
	}
	want, ok := tagSum(cur.ETag)
	if !ok {
		return fmt.Errorf("ETag %s is not derived from sha-256", cur.ETag)
	}
	b, err := h.openBlob(cur.File, base)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := rebuilds(f, d.ims, b, base.Size, []verify.Digest{{Algorithm: "sha-256", Value: want}}); err != nil {
		return err
	}
	if now, err := fileid.File(f); err != nil || !fileid.Same(now, id) {
		return fmt.Errorf("delta %s changed while it was checked", filepath.Base(d.path))
	}
	h.remember(d.path, id)
	return nil
}

// remember notes that the delta file at path, with the ID id, was seen
// to rebuild its target (checkFile, or deltaFile that made it).
func (h *Handler) remember(path string, id fileid.ID) {
	h.checkedMu.Lock()
	defer h.checkedMu.Unlock()
	if h.checked == nil || len(h.checked) >= maxChecked {
		h.checked = map[string]fileid.ID{}
	}
	h.checked[path] = id
}

// check verifies that a delta rebuilds to every digest cur used.
func (h *Handler) check(d *made, cur *server.Representation, base version) error {
	f, err := ownfile.Open(d.path, os.O_RDONLY)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := h.openBlob(cur.File, base)
	if err != nil {
		return err
	}
	defer b.Close()
	return rebuilds(f, d.ims, b, base.Size, cur.UsedDigests())
}

// notAcceptable is the refusal the server answers with 406 when identity
// was refused (RFC 3229 §10.5.3), else nil: the server answers as usual.
func notAcceptable(aim []patch.Manipulation, why string) error {
	if !refusesIdentity(aim) {
		return nil
	}
	return &server.Refusal{Status: http.StatusNotAcceptable, Detail: "identity;q=0 was asked for, but " + why}
}

// write sends the 226 with the delta as its body: no content coding, the
// delta being between identities (RFC 3229 §10.7.1); a compression of the
// delta is one of its instance manipulations. f is d's file as checkOnce
// checked it, open at its start; its size is d.size. An error is returned
// before anything was written.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, f *os.File, d *made, base version) error {
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
				return err
			}
		}
	}
	hd.Del("Content-Encoding")
	if !listsVary(hd.Values("Vary"), "Accept-Encoding") {
		hd.Add("Vary", "Accept-Encoding")
	}
	hd.Set("IM", strings.Join(d.ims, ", "))
	hd.Set("Delta-Base", base.ETag)
	// A cache that knows RFC 3229 ignores no-store beside im (§10.8.2):
	// the freshness the response had (a dictionary's max-age) is kept for
	// it, as in RFC 3229 §5.5's "no-store, im, max-age=30".
	cc := "no-store, im"
	if prev := hd.Values("Cache-Control"); len(prev) > 0 {
		cc += ", " + strings.Join(prev, ", ")
	}
	hd.Set("Cache-Control", cc)
	hd.Set("Content-Length", strconv.FormatInt(d.size, 10))
	hd.Del("Accept-Ranges")
	w.WriteHeader(http.StatusIMUsed)
	if _, err := io.Copy(w, f); err != nil && !errors.Is(err, r.Context().Err()) {
		h.log.Debug("delta write", "err", err)
	}
	return nil
}

// listsVary reports whether the Vary field lines already list name (or *).
func listsVary(lines []string, name string) bool {
	for _, l := range lines {
		for _, t := range strings.Split(l, ",") {
			if t = strings.TrimSpace(t); t == "*" || strings.EqualFold(t, name) {
				return true
			}
		}
	}
	return false
}

// preconditionsHold evaluates the preconditions RFC 9110 §13.2.2 puts
// before If-None-Match (If-Match, else If-Unmodified-Since) against cur, as
// the server's http.ServeContent does: when one fails the answer is 412,
// not a 226 from the base If-None-Match names. A malformed If-Match is
// left to the server too.
func preconditionsHold(r *http.Request, cur *server.Representation) bool {
	if lines := r.Header.Values("If-Match"); len(lines) > 0 {
		tags, err := httpfield.ParseETags(lines)
		if err != nil {
			return false
		}
		for _, t := range tags {
			// Strong comparison (RFC 9110 §8.8.3.2): weak tags never match.
			if t == "*" || (t == cur.ETag && strings.HasPrefix(t, `"`)) {
				return true
			}
		}
		return false
	}
	if v := r.Header.Get("If-Unmodified-Since"); v != "" && !cur.ModTime.IsZero() {
		if t, err := http.ParseTime(v); err == nil && cur.ModTime.Truncate(time.Second).After(t) {
			return false
		}
	}
	return true
}
