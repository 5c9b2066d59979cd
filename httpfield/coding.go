package httpfield

import "strings"

// ContentCodings returns the codings a Content-Encoding field lists over
// all its lines (RFC 9110 §8.4), in the order applied, lowercased; empty
// members and "identity" (no coding) are left out.
func ContentCodings(lines []string) []string {
	var out []string
	for _, line := range lines {
		for _, c := range strings.Split(line, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				out = append(out, c)
			}
		}
	}
	return out
}

// ContentCoding is ContentCodings as one field value ("gzip, br"), "" for
// identity.
func ContentCoding(lines []string) string {
	return strings.Join(ContentCodings(lines), ", ")
}
