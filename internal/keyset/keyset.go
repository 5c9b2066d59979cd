// Package keyset is a bounded set of keys, for what a server remembers
// so as not to do it again (a build that failed, a warning logged) however
// many distinct keys clients make it see.
package keyset

import "sync"

// DefaultMax is the bound of a Set whose Max is 0.
const DefaultMax = 4096

// Set is a set of keys, safe for concurrent use. Past Max keys it is
// emptied: what it held is done once more, never held without bound. The
// zero Set is empty, with DefaultMax.
type Set struct {
	Max int

	mu   sync.Mutex
	keys map[string]bool
}

// Add adds key; it reports whether key was not in the set.
func (s *Set) Add(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys[key] {
		return false
	}
	limit := s.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	if s.keys == nil || len(s.keys) >= limit {
		s.keys = map[string]bool{}
	}
	s.keys[key] = true
	return true
}

// Has reports whether key is in the set.
func (s *Set) Has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[key]
}
