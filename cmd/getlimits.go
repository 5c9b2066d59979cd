package cmd

import (
	"fmt"

	"github.com/hdig/hdig/fetch"
	"github.com/spf13/pflag"
)

// limitFlags are hdig get's bounds on what a fetch may write.
type limitFlags struct {
	MaxFileSize string
	MaxRatio    int64
}

func (l *limitFlags) add(f *pflag.FlagSet) {
	f.StringVar(&l.MaxFileSize, "max-filesize", "", "refuse a body over `SIZE` (by Content-Length), and stop one that writes more, decoded, rebuilt or received (exit 4)")
	f.Int64Var(&l.MaxRatio, "max-ratio", fetch.DefaultMaxRatio, fmt.Sprintf("stop --compressed and 226 output past %d MiB at more than `N` bytes per byte received (0: no bound; exit 4, a delta is fetched whole instead)", fetch.DefaultRatioFloor>>20))
}

// limits checks the flags and returns the bounds.
func (l *limitFlags) limits() (fetch.Limits, error) {
	var lim fetch.Limits
	if l.MaxFileSize != "" {
		n, err := parseSize(l.MaxFileSize)
		if err != nil {
			return lim, usageErrorf("--max-filesize: %v", err)
		}
		lim.MaxFileSize = n
	}
	switch {
	case l.MaxRatio < 0:
		return lim, usageErrorf("--max-ratio %d: want 0 (no bound) or more", l.MaxRatio)
	case l.MaxRatio == 0:
		lim.MaxRatio = -1
	default:
		lim.MaxRatio = l.MaxRatio
	}
	return lim, nil
}
