package httpfield

import (
	"fmt"
	"strings"
)

// MaxETags bounds the entity tags read from one If-Match or If-None-Match
// field: hdig offers at most a few cached versions, and a longer list only
// costs the origin memory and comparisons.
const MaxETags = 256

// ParseETags parses an If-Match or If-None-Match list of entity tags (RFC
// 9110 §13.1.1, §13.1.2): strong tags as they are ("\"x\""), weak ones with
// their "W/" prefix, and "*". Members that are not entity tags are skipped;
// a quoted tag may hold commas. More than MaxETags tags is an error.
func ParseETags(lines []string) ([]string, error) {
	var out []string
	for _, l := range lines {
		s := l
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			if len(out) == MaxETags {
				return nil, fmt.Errorf("entity-tag list: more than %d tags", MaxETags)
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
	return out, nil
}
