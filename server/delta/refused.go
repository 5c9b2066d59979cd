package delta

import (
	"errors"

	"github.com/hdig/hdig/internal/ownfile"
)

// refusedBlob tells the operator, once for each blob, that a retained
// version is not used because its file is not one hdig left (ownfile: a
// second name, as a snapshot by hard links or a deduplicating tool makes,
// or a file someone else owns): no delta is made from it and no dcb or
// dcz against it, and on the dictionary path nothing else says why.
func (h *Handler) refusedBlob(path string, err error) {
	if !errors.Is(err, ownfile.ErrNotOwn) {
		return
	}
	h.refusedMu.Lock()
	seen := h.refused[path]
	if !seen {
		if h.refused == nil || len(h.refused) >= maxChecked {
			h.refused = map[string]bool{}
		}
		h.refused[path] = true
	}
	h.refusedMu.Unlock()
	if !seen {
		h.log.Warn("retained version not used as a delta base or dictionary", "blob", path, "err", err)
	}
}
