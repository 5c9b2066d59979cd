package httpfield

import "strings"

// QValue returns the weight in the parameters of a list member (what
// follows its first ";", e.g. "q=0.5" of "gzip;q=0.5"): 1 when there is no
// q parameter, ok false when it is malformed. Parameter names are
// case-insensitive; other parameters are ignored.
func QValue(params string) (q float64, ok bool) {
	q = 1
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		if q, ok = ParseQValue(strings.TrimSpace(v)); !ok {
			return 0, false
		}
	}
	return q, true
}

// ParseQValue parses qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
// (RFC 9110 §12.4.2): no sign, exponent or fourth decimal, nothing above 1.
func ParseQValue(s string) (float64, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 {
		return 0, false
	}
	n := 0
	for i := range 3 {
		d := 0
		if i < len(frac) {
			if frac[i] < '0' || frac[i] > '9' {
				return 0, false
			}
			d = int(frac[i] - '0')
		}
		n = n*10 + d
	}
	switch {
	case whole == "0":
		return float64(n) / 1000, true
	case whole == "1" && n == 0:
		return 1, true
	}
	return 0, false
}
