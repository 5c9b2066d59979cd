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
	if h.refused.Add(path) {
		h.log.Warn("retained version not used as a delta base or dictionary", "blob", path, "err", err)
	}
}
