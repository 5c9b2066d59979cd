package delta

import "github.com/hdig/hdig/patch"

// deltaCodings are the delta-codings the origin can produce, in the order
// tried when qvalues tie: hdig-vcdiff-inflated first, as it is plain
// VCDIFF where a target holds no zlib stream to expand (then it is
// skipped: inflatable) and smaller where it does (bestDelta then makes
// both and keeps the smaller).
var deltaCodings = []string{patch.InflatedIM, "vcdiff", "gdiff", "diffe"}

// compressions are the one-input manipulations that may follow a
// delta-coding that is not compressed itself (RFC 3229 §10.9).
var compressions = []string{"gzip", "deflate"}

// accepted returns the acceptable manipulations named in the list (q > 0)
// among the names given, best qvalue first, ties in the order of names.
func accepted(aim []patch.Manipulation, names []string) []patch.Manipulation {
	var out []patch.Manipulation
	for _, n := range names {
		for _, m := range aim {
			if m.Name == n && m.Q > 0 {
				out = append(out, m)
			}
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Q > out[j-1].Q; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// refusesIdentity reports A-IM: identity;q=0 (RFC 3229 §10.5.3).
func refusesIdentity(aim []patch.Manipulation) bool {
	for _, m := range aim {
		if m.Name == "identity" && m.Q == 0 {
			return true
		}
	}
	return false
}

// acceptedAfter returns the acceptable manipulations among names that the
// A-IM lists after coding's first acceptable member (a compression applies
// to the delta it follows), best qvalue first.
func acceptedAfter(aim []patch.Manipulation, coding string, names []string) []patch.Manipulation {
	pos := -1
	for _, m := range aim {
		if m.Name == coding && m.Q > 0 {
			pos = m.Pos
			break
		}
	}
	var out []patch.Manipulation
	for _, m := range accepted(aim, names) {
		if pos >= 0 && m.Pos > pos {
			out = append(out, m)
		}
	}
	return out
}
