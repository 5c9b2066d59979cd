package fetch

import (
	"context"
	"net/http"
	"net/url"
)

// baseOfferKey marks a request's context with the origin whose cached
// versions it offers (A-IM, If-None-Match: Delta.Get).
type baseOfferKey struct{}

// withBaseOffer returns ctx recording that its requests offer the cached
// versions of rawURL ("": none), so that a redirect's request offers them
// only to that URL's origin.
func withBaseOffer(ctx context.Context, rawURL string) context.Context {
	if rawURL == "" {
		return ctx
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return ctx
	}
	return context.WithValue(ctx, baseOfferKey{}, originOf(u))
}

// basesWithheld says req carries an offer of cached versions (A-IM and
// the entity tags of If-None-Match) made for another origin: a redirect
// led there. Their entity tags are the first origin's, which may name the
// user (a tag made per client) and are state of its cache as a dictionary
// is (RFC 9842 §10): another origin is not told them, and cannot answer
// them with a 304 or a 226 against a version it never sent.
func basesWithheld(req *http.Request) bool {
	owner, ok := req.Context().Value(baseOfferKey{}).(string)
	return ok && originOf(req.URL) != owner
}

// withoutBaseOffer removes the offer basesWithheld refuses.
func withoutBaseOffer(h http.Header) {
	h.Del("A-IM")
	h.Del("If-None-Match")
}
