package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/patch"
	"github.com/spf13/cobra"
)

func init() { register(newDiffCmd) }

// diffOptions are the flags and arguments of hdig diff.
type diffOptions struct {
	IO       *IOStreams
	Old, New string
	Format   string
	Output   string
	Checksum bool
	Level    int
}

// deltaFormats are the --format values of diff and patch.
var deltaFormats = []string{"vcdiff", patch.InflatedIM, "gdiff", "diffe"}

func newDiffCmd(ios *IOStreams) *cobra.Command {
	opts := &diffOptions{IO: ios}
	c := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Write a delta from OLD to NEW",
		Long: `Write a delta that turns OLD into NEW: RFC 3284 VCDIFF (the default, which
"xdelta3 -d -s OLD" also decodes), hdig-vcdiff-inflated (VCDIFF between the two
files with each zlib stream that Go's zlib writer reproduces inflated: a third
of the size between two builds of a Go program; hdig patch rebuilds it), gdiff,
or a "diff -e" ed script (text only). NEW - reads stdin; OLD must be a
regular file (it is read at random offsets).` + exitStatusHelp,
		Example: `  hdig diff v1.json v2.json -o v1-v2.vcdiff
  hdig diff -l 9 old.tar new.tar -o d.vcdiff
  hdig diff --format diffe old.txt new.txt`,
		Args: deltaArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Old, opts.New = args[0], args[1]
			if !validDeltaFormat(opts.Format) {
				return usageErrorf("--format %q: want one of %s", opts.Format, strings.Join(deltaFormats, ", "))
			}
			if opts.Level < 0 || opts.Level > 9 {
				return usageErrorf("--level %d: want 0 (fastest) to 9 (smallest)", opts.Level)
			}
			return runDiff(opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "vcdiff", "delta `format`: vcdiff, hdig-vcdiff-inflated, gdiff or diffe")
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the delta to `FILE` instead of stdout")
	c.Flags().IntVarP(&opts.Level, "level", "l", patch.DefaultLevel, "vcdiff and gdiff `LEVEL`: 0 fastest to 9 smallest, like xdelta3's -0…-9")
	c.Flags().BoolVar(&opts.Checksum, "checksum", true, "add each vcdiff window's Adler-32 of its target, as xdelta3 does, so a patch against the wrong OLD fails (--checksum=false: leave it out, as xdelta3 -n)")
	return c
}

// deltaArgs wants exactly two file arguments; anything else is a usage error.
func deltaArgs(c *cobra.Command, args []string) error {
	if len(args) != 2 {
		return usageHelpf(c, "%s wants 2 files, got %d arguments", c.Name(), len(args))
	}
	return nil
}

func validDeltaFormat(f string) bool {
	for _, v := range deltaFormats {
		if f == v {
			return true
		}
	}
	return false
}

func runDiff(opts *diffOptions) error {
	patch.HugePages.Store(true) // a short-lived process: see patch.HugePages
	old, oldSize, err := openDeltaBase(opts.Old)
	if err != nil {
		return err
	}
	defer old.Close()
	nw, err := openStreamInput(opts.IO, opts.New)
	if err != nil {
		return err
	}
	defer nw.Close()
	err = writeDeltaOutput(opts.IO, opts.Output, func(w io.Writer) error {
		return patch.Encode(opts.Format, old, oldSize, nw, w, patch.WithChecksum(opts.Checksum), patch.WithLevel(opts.Level))
	})
	if errors.Is(err, patch.ErrNothingInflated) {
		return usageErrorf("%s holds no zlib stream that Go's zlib writer reproduces: --format vcdiff makes the same delta with less work", opts.New)
	}
	return err
}

// openStreamInput opens an input read once, in order: a file named on the
// command line, or stdin for "-"; failing is a usage error.
func openStreamInput(ios *IOStreams, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(ios.In), nil
	}
	f, _, err := openDeltaInput(name)
	return f, err
}

// openDeltaInput opens a file named on the command line; failing is a
// usage error.
func openDeltaInput(name string) (*os.File, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, usageErrorf("%v", err)
	}
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		err = fmt.Errorf("%s is a directory", name)
	}
	if err != nil {
		f.Close()
		return nil, 0, usageErrorf("%v", err)
	}
	return f, st.Size(), nil
}

// openDeltaBase opens OLD, which is read at random offsets and whose size
// bounds the delta's source segments: only a regular file will do. A pipe
// or device reports size 0 and would be taken for an empty base; "-",
// stdin, is one.
func openDeltaBase(name string) (*os.File, int64, error) {
	if name == "-" {
		return nil, 0, usageErrorf("OLD cannot be stdin (-): it is read at random offsets (save it to a file first)")
	}
	f, size, err := openDeltaInput(name)
	if err != nil {
		return nil, 0, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, usageErrorf("%s is not a regular file: OLD is read at random offsets (save it to a file first)", name)
	}
	return f, size, nil
}

// writeDeltaOutput runs write against stdout, or against FILE.hdig-part renamed
// onto FILE only when write succeeded, so a failure never leaves a
// half-written FILE. FILE is resolved as get -o resolves it: a symbolic
// link is followed, and a device or FIFO is written into once write
// succeeded, never replaced by a regular file.
func writeDeltaOutput(ios *IOStreams, name string, write func(io.Writer) error) (err error) {
	if name == "" || name == "-" {
		return write(ios.Out)
	}
	out, err := fetch.ResolveOutput(name)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if out.Special {
		dev := &fetch.DeviceSink{Path: out.Path}
		if err := write(dev); err != nil {
			dev.Abort()
			return err
		}
		return dev.Commit()
	}
	name = out.Path
	part := fetch.Beside(name, fetch.PartSuffix)
	f, err := fetch.CreatePart(part, name)
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(part, name)
		}
		if err != nil {
			os.Remove(part)
		}
	}()
	return write(f)
}
