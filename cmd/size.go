package cmd

import (
	"fmt"
	"strconv"
	"strings"
)

// maxSizeText bounds a SIZE argument: 19 digits, a space and "GiB" fit.
const maxSizeText = 32

// parseSize parses the SIZE of every command's flags: a positive byte
// count with an optional binary unit, K, M, G or T (any case), which may
// be followed by "iB" or "B": 1048576, 64k, 100MiB, 100MB, 1G, 2GiB, 1T,
// 512B. Units are powers of 1024. Anything else ("5bi", "1Gbb", "1.5G",
// "1P") is refused.
func parseSize(s string) (int64, error) {
	bad := func() (int64, error) {
		if len(s) > maxSizeText {
			s = s[:maxSizeText] + "…"
		}
		return 0, fmt.Errorf("invalid size %q (want a positive byte count with an optional unit K, M, G or T, e.g. 1048576, 100MiB, 1GiB)", s)
	}
	if len(s) > maxSizeText {
		return bad()
	}
	t := strings.TrimSpace(s)
	digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
	num, unit := t[:digits], strings.ToLower(strings.TrimSpace(t[digits:]))
	shift := 0
	switch {
	case unit == "" || unit == "b":
	case strings.IndexByte("kmgt", unit[0]) >= 0 && (unit[1:] == "" || unit[1:] == "b" || unit[1:] == "ib"):
		shift = 10 * (1 + strings.IndexByte("kmgt", unit[0]))
	default:
		return bad()
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		return bad()
	}
	return n << shift, nil
}
