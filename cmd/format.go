package cmd

import (
	"fmt"

	"github.com/fatih/color"
)

// humanBytes formats a byte count like "4.0 MiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// palette colours verdict marks when colour is enabled.
type palette struct{ on bool }

func (p palette) paint(attr color.Attribute, s string) string {
	if !p.on {
		return s
	}
	c := color.New(attr)
	c.EnableColor()
	return c.Sprint(s)
}

func (p palette) ok(s string) string   { return p.paint(color.FgGreen, s) }
func (p palette) bad(s string) string  { return p.paint(color.FgRed, s) }
func (p palette) warn(s string) string { return p.paint(color.FgYellow, s) }
