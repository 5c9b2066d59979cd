package server

import (
	"net/http"
	"strconv"
	"time"
)

// snapshotFields are the header values of a snapshot's plain 200, made
// once when it is taken rather than on every request.
type snapshotFields struct {
	contentType  []string
	lastModified []string
	length       []string
}

func newSnapshotFields(ct string, mod time.Time, size int64) snapshotFields {
	f := snapshotFields{contentType: []string{ct}, length: []string{strconv.FormatInt(size, 10)}}
	// As ServeContent: no Last-Modified for a zero or Unix epoch time.
	if !mod.IsZero() && !mod.Equal(time.Unix(0, 0)) {
		f.lastModified = []string{mod.UTC().Format(http.TimeFormat)}
	}
	return f
}

// acceptRanges is the Accept-Ranges value http.ServeContent sends.
var acceptRanges = []string{"bytes"}

// sendSnapshot answers a plain GET (no Range, no conditions) of a snapshot
// in memory the way http.ServeContent would (Last-Modified, Accept-Ranges,
// Content-Length, 200 and the bytes in one write), with the header values
// made when the snapshot was taken, and reports true. Anything else, or a
// response with work to wait for before its last byte (BeforeEnd), is
// left to ServeContent and the guard. The field slices are shared by every
// response: net/http only reads them, and Set or Add never write into
// them (their capacity is their length).
func (s *Server) sendSnapshot(bw *bodyWriter, r *http.Request, rep *Representation) bool {
	sn := rep.snap
	if sn == nil || len(rep.waits) > 0 || !plainGet(r) || s.cfg.faults != noFaults {
		return false
	}
	h := bw.Header()
	h["Content-Type"] = sn.fields.contentType
	if sn.fields.lastModified != nil {
		h["Last-Modified"] = sn.fields.lastModified
	}
	h["Accept-Ranges"] = acceptRanges
	h["Content-Length"] = sn.fields.length
	bw.WriteHeader(http.StatusOK)
	bw.Write(sn.data)
	bw.finish()
	return true
}
