package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hdig/hdig/patch"
	"github.com/spf13/cobra"
)

func init() {
	register(newPatchCmd)
	addClassifier(classifyPatch)
}

// patchOptions are the flags and arguments of hdig patch.
type patchOptions struct {
	IO         *IOStreams
	Old, Delta string
	Format     string
	Output     string
}

func newPatchCmd(ios *IOStreams) *cobra.Command {
	opts := &patchOptions{IO: ios}
	c := &cobra.Command{
		Use:   "patch OLD DELTA",
		Short: "Apply DELTA to OLD and write the result",
		Long: `Apply a delta to OLD and write the result. VCDIFF (RFC 3284, including
what "xdelta3 -e" writes with -S lzma, djw, fgk or none) and gdiff are recognised by their magic bytes;
a "diff -e" script needs --format diffe, hdig diff's hdig-vcdiff-inflated
--format hdig-vcdiff-inflated. DELTA - reads the delta from stdin; OLD must be
a regular file (it is read at random offsets).` + exitStatusHelp,
		Example: `  hdig patch v1.json v1-v2.vcdiff -o v2.json
  hdig patch --format diffe old.txt changes.ed`,
		Args: deltaArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Old, opts.Delta = args[0], args[1]
			if opts.Format != "" && !validDeltaFormat(opts.Format) {
				return usageErrorf("--format %q: want one of %s", opts.Format, strings.Join(deltaFormats, ", "))
			}
			return runPatch(opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "", "delta `format`: vcdiff, hdig-vcdiff-inflated, gdiff or diffe (default: detected)")
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the result to `FILE` instead of stdout")
	return c
}

func runPatch(opts *patchOptions) error {
	patch.HugePages.Store(true) // a short-lived process: see patch.HugePages
	old, oldSize, err := openDeltaBase(opts.Old)
	if err != nil {
		return err
	}
	defer old.Close()
	df, err := openStreamInput(opts.IO, opts.Delta)
	if err != nil {
		return err
	}
	defer df.Close()
	delta := bufio.NewReaderSize(df, 64<<10)
	format := opts.Format
	if format == "" {
		prefix, _ := delta.Peek(5)
		if format = patch.Detect(prefix); format == "" {
			return fmt.Errorf("%w: %s is neither vcdiff nor gdiff (for a diff -e script use --format diffe)", patch.ErrCorrupt, opts.Delta)
		}
	}
	return writeDeltaOutput(opts.IO, opts.Output, func(w io.Writer) error {
		if err := patch.Undo([]string{format}, old, oldSize, delta, w); err != nil {
			return fmt.Errorf("patch %s with %s: %w", opts.Old, opts.Delta, err)
		}
		return nil
	})
}

// classifyPatch maps a delta that cannot be applied to the integrity status.
func classifyPatch(err error) (int, bool) {
	if errors.Is(err, patch.ErrCorrupt) || errors.Is(err, patch.ErrUnsupported) || errors.Is(err, patch.ErrLimit) {
		return ExitIntegrity, true
	}
	return 0, false
}
