package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"

	"github.com/hdig/hdig/verify"
)

// problemBase prefixes the type URIs of hdig's problem details.
const problemBase = "https://hdig.dev/problems/"

// problem is an RFC 9457 problem details object. Detail never carries the
// text of an internal error.
type problem struct {
	Type     string `json:"type,omitempty"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	// Extension members for digest mismatches (the first one, and all).
	Field      string     `json:"field,omitempty"`
	Algorithm  string     `json:"algorithm,omitempty"`
	Expected   string     `json:"expected,omitempty"`
	Actual     string     `json:"actual,omitempty"`
	Mismatches []mismatch `json:"mismatches,omitempty"`
}

// mismatch is one digest member of a request that did not match.
type mismatch struct {
	Field     string `json:"field"`
	Algorithm string `json:"algorithm"`
	Expected  string `json:"expected"`
	Actual    string `json:"actual"`
}

// problem writes p as application/problem+json: the one writer of every
// error response, the delta step's (Refusal) and those http.ServeContent
// chose (bodyWriter.replace) included. The body is itself a
// representation describing the request's status, so it carries its own
// Repr-Digest (RFC 9530 §3.1, Appendix B.10), and Content-Digest on request.
func (s *Server) problem(w http.ResponseWriter, r *http.Request, p problem) {
	if p.Title == "" {
		p.Title = http.StatusText(p.Status)
	}
	if p.Type == "" {
		p.Type = "about:blank"
	}
	if p.Instance == "" {
		p.Instance = r.URL.Path
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.Encode(p)
	body := buf.Bytes()
	h := w.Header()
	for _, k := range []string{"ETag", "Last-Modified", "Content-Encoding", "Content-Length", "Vary"} {
		h.Del(k)
	}
	if p.Status != http.StatusRequestedRangeNotSatisfiable {
		// A 416 keeps its "bytes */length" (RFC 9110 §15.5.17).
		h.Del("Content-Range")
	}
	DropRepresentationFields(h, p.Status)
	s.corsVary(h)
	h.Set("Content-Type", "application/problem+json")
	h.Set("X-Content-Type-Options", "nosniff")
	if ds, _, err := verify.Sum(bytes.NewReader(body), chooseAlgs(r.Header, verify.WantReprDigest)); err == nil && len(ds) > 0 {
		h.Set(verify.ReprDigest, verify.FormatDigests(ds))
	}
	if wantsContentDigest(r.Header) {
		if ds, _, err := verify.Sum(bytes.NewReader(body), chooseAlgs(r.Header, verify.WantContentDigest)); err == nil && len(ds) > 0 {
			h.Set(verify.ContentDigest, verify.FormatDigests(ds))
		}
	}
	w.WriteHeader(p.Status)
	w.Write(body)
}

// fileError answers a failure to open a requested file: 403 for a
// permission error, 404 for everything else (missing, hidden, outside the
// directory, not a directory). The error itself is only logged.
func (s *Server) fileError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, fs.ErrPermission) {
		s.problem(w, r, problem{Status: http.StatusForbidden})
		return
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errHidden) {
		s.cfg.logger.Debug("open refused", "path", r.URL.Path, "err", err)
	}
	s.problem(w, r, problem{Status: http.StatusNotFound})
}

// internalError answers 500 and logs err; the client learns nothing of it.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, err error) {
	s.cfg.logger.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	s.problem(w, r, problem{Status: http.StatusInternalServerError})
}
