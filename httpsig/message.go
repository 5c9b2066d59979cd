package httpsig

import (
	"fmt"
	"net/http"
)

// Message is the target of a signature with its context: a request, or a
// response with the request that triggered it (for `req` components).
type Message struct {
	// Request is the target when Response is nil, else the request the
	// response answers (may be nil if no component uses `req`).
	Request *http.Request
	// Response is the target message when set.
	Response *http.Response
	// FieldTypes names the structured type of fields beyond the known ones
	// (DefaultFieldTypes) for the `sf` and `key` parameters.
	FieldTypes map[string]FieldType
}

// RequestMessage is the signature context of a request.
func RequestMessage(r *http.Request) Message { return Message{Request: r} }

// ResponseMessage is the signature context of a response to req (req may
// be nil when no component uses `req`).
func ResponseMessage(resp *http.Response, req *http.Request) Message {
	return Message{Request: req, Response: resp}
}

func (m Message) isResponse() bool { return m.Response != nil }

// header is the target message's header (or trailer) fields for c, taking
// `req` into account.
func (m Message) fields(c Component) (http.Header, error) {
	if c.has("req") || m.Response == nil {
		if m.Request == nil {
			return nil, fmt.Errorf("httpsig: component %s: no request in the signature context", c)
		}
		if c.has("tr") {
			return m.Request.Trailer, nil
		}
		return m.Request.Header, nil
	}
	if c.has("tr") {
		return m.Response.Trailer, nil
	}
	return m.Response.Header, nil
}

// request is the request derived components of c come from.
func (m Message) request(c Component) (*http.Request, error) {
	if m.Response != nil && !c.has("req") {
		return nil, fmt.Errorf("httpsig: component %s applies to requests; the target is a response (use req)", c)
	}
	if m.Request == nil {
		return nil, fmt.Errorf("httpsig: component %s: no request in the signature context", c)
	}
	return m.Request, nil
}
