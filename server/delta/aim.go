package delta

import (
	"strconv"
	"strings"
)

// manipulation is one member of an A-IM field: a name and its qvalue.
type manipulation struct {
	name string
	q    float64
	pos  int // position in the field: the order to apply them (RFC 3229 §10.5.3)
}

// maxAIM bounds the members read from an A-IM field.
const maxAIM = 32

// parseAIM parses A-IM = #( instance-manipulation [ ";" "q" "=" qvalue ] )
// (RFC 3229 §10.5.3). Members with a malformed qvalue are dropped;
// other parameters are ignored.
func parseAIM(lines []string) []manipulation {
	var out []manipulation
	for _, l := range lines {
		for _, part := range strings.Split(l, ",") {
			if len(out) == maxAIM {
				return out
			}
			fields := strings.Split(part, ";")
			name := strings.ToLower(strings.TrimSpace(fields[0]))
			if name == "" {
				continue
			}
			m := manipulation{name: name, q: 1, pos: len(out)}
			ok := true
			for _, p := range fields[1:] {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.ToLower(strings.TrimSpace(k)) != "q" {
					continue
				}
				q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || q < 0 || q > 1 {
					ok = false
					break
				}
				m.q = q
			}
			if ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// deltaCodings are the delta-codings the origin can produce, in the order
// tried when qvalues tie.
var deltaCodings = []string{"vcdiff", "gdiff", "diffe"}

// compressions are the one-input manipulations that may follow a
// delta-coding that is not compressed itself (RFC 3229 §10.9).
var compressions = []string{"gzip", "deflate"}

// accepted returns the acceptable manipulations named in the list (q > 0)
// among the names given, best qvalue first, ties in the order of names.
func accepted(aim []manipulation, names []string) []manipulation {
	var out []manipulation
	for _, n := range names {
		for _, m := range aim {
			if m.name == n && m.q > 0 {
				out = append(out, m)
			}
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].q > out[j-1].q; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// refusesIdentity reports A-IM: identity;q=0 (RFC 3229 §10.5.3).
func refusesIdentity(aim []manipulation) bool {
	for _, m := range aim {
		if m.name == "identity" && m.q == 0 {
			return true
		}
	}
	return false
}

// parseETags parses an If-None-Match list of entity tags: strong tags as
// they are, weak ones with their "W/" prefix, and "*". The field is bounded
// by the server's header limit, so the whole list is read.
func parseETags(lines []string) []string {
	var out []string
	for _, l := range lines {
		s := l
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			weak := strings.HasPrefix(s, "W/")
			if weak {
				s = s[2:]
			}
			if !strings.HasPrefix(s, `"`) {
				// Not an entity tag ("*" or garbage): up to the next comma.
				tok, rest, _ := strings.Cut(s, ",")
				if tok = strings.TrimSpace(tok); tok == "*" && !weak {
					out = append(out, tok)
				}
				s = rest
				continue
			}
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				break
			}
			tag := s[:end+2]
			s = s[end+2:]
			if weak {
				tag = "W/" + tag
			}
			out = append(out, tag)
		}
	}
	return out
}
