package fetch

import (
	"net/http"
	"strings"
)

// refusedExpect says resp is a 417 to a request that carried Expect:
// 100-continue (the user's, or the one hdig adds to a large body) and
// whose content can be sent again: an origin or proxy that does not take
// the expectation (old proxies answer 417) gets the request again without
// it, as curl does.
func refusedExpect(r *http.Request, resp *http.Response) bool {
	return resp.StatusCode == http.StatusExpectationFailed && r.GetBody != nil &&
		strings.EqualFold(strings.TrimSpace(r.Header.Get("Expect")), "100-continue")
}

// withoutExpect sends r again without its Expect field, its content
// opened anew, once resp (the 417) is closed.
func (g credentialGuard) withoutExpect(r *http.Request, resp *http.Response) (*http.Response, error) {
	body, err := r.GetBody()
	if err != nil {
		return resp, nil // the 417 stands
	}
	resp.Body.Close()
	again := r.Clone(r.Context())
	again.Header.Del("Expect")
	again.Body = body
	if f := sentHook(r.Context()); f != nil {
		f(again)
	}
	return g.rt.RoundTrip(again)
}
