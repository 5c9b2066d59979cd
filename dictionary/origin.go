package dictionary

// SameOrigin reports whether the pattern names the origin of the URL the
// dictionary came from. RFC 9842 §2.2.2 lets a dictionary match only
// requests to that origin, so a pattern naming another origin (an absolute
// "https://other.example/*") can never match: a client refuses to store it.
func (p *Pattern) SameOrigin() bool { return p.origin == p.base }

// Origin is the origin (scheme://host[:port], default port left out) of
// the URL the dictionary came from, as Match compares it.
func (p *Pattern) Origin() string { return p.base }
