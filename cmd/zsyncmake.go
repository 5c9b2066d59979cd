package cmd

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"os"

	"path/filepath"

	"time"

	"github.com/spf13/cobra"

	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/zsync"
)

func init() { register(newZsyncmakeCmd) }

// zsyncmakeOptions are the flags and argument of hdig zsyncmake.
type zsyncmakeOptions struct {
	IO        *IOStreams
	File      string
	URL       string
	Output    string
	Filename  string
	Blocksize int
}

func newZsyncmakeCmd(ios *IOStreams) *cobra.Command {
	opts := &zsyncmakeOptions{IO: ios}
	c := &cobra.Command{
		Use:   "zsyncmake FILE [-u URL] [-o OUT] [-b BLOCKSIZE]",
		Short: "Write the zsync control file (.zsync) of FILE",
		Long: `Write the zsync 0.6.2 control file of FILE, as Debian's zsyncmake does
(same bytes for the same file and flags): per block a truncated rolling
checksum and MD4, and the SHA-1 of the whole file. Publish it next to FILE
and any zsync client (zsync -i OLD URL.zsync, hdig serve) can fetch only the
blocks it lacks.

The block size defaults to 2048 below 100,000,000 bytes and 4096 above, the
hash lengths follow from the file's size, as zsyncmake chooses them. FILE is
always taken as it is: unlike zsyncmake, a .gz file is not looked into
(zsyncmake -Z behaviour).

Without -u the control file names FILE by its relative URL (its base name):
keep both in the same directory. FILE - reads stdin (then -u is needed, and
the name defaults to the URL's last segment); stdin or a pipe is copied to a
temporary file first, since the control file states the length before the
first block. Without -o the control file is written to
the base name of FILE plus .zsync in the current directory; -o - writes it
to stdout.` + exitStatusHelp,
		Example: `  hdig zsyncmake big.iso -u http://example.org/big.iso
  hdig zsyncmake -b 4096 -o - data.bin > data.bin.zsync`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = args[0]
			return runZsyncmake(opts)
		},
	}
	fl := c.Flags()
	fl.StringVarP(&opts.URL, "url", "u", "", "`URL` of FILE written in the control file (default: FILE's base name)")
	fl.StringVarP(&opts.Output, "output", "o", "", "write the control file to `OUT` (default: FILE's base name plus .zsync; - for stdout)")
	fl.StringVarP(&opts.Filename, "filename", "f", "", "file `NAME` suggested to clients (default: FILE's base name)")
	fl.IntVarP(&opts.Blocksize, "blocksize", "b", 0, "block `SIZE` in bytes, a power of two (default: 2048, or 4096 from 100 MB)")
	return c
}

func runZsyncmake(opts *zsyncmakeOptions) error {
	bs := opts.Blocksize
	if bs != 0 && (bs&(bs-1) != 0 || bs < zsync.MinBlocksize || bs > zsync.MaxBlocksize) {
		return usageErrorf("-b %d: want a power of two from %d to %d", bs, zsync.MinBlocksize, zsync.MaxBlocksize)
	}
	if opts.File == "-" && opts.URL == "" {
		return usageErrorf("zsyncmake -: stdin has no name to refer to; give its URL with -u")
	}
	base := filepath.Base(opts.File)
	if opts.File == "-" {
		if base = opts.Filename; base == "" {
			// The name get -O gives the file this URL serves.
			var err error
			if base, err = remoteName(opts.URL); unnamed(err) {
				return usageErrorf("zsyncmake -: -u %s ends in no file name get -O would write; name the file with -f", httpfield.Redact(opts.URL))
			} else if err != nil {
				return err
			}
		}
		if base == ".." {
			return usageErrorf("zsyncmake -: -f %s is no file name", base)
		}
	}
	f, size, mtime, err := openZsyncInput(opts.IO, opts.File)
	if err != nil {
		return err
	}
	defer f.Close()
	mo := zsync.MakeOptions{Blocksize: bs, Filename: opts.Filename, MTime: mtime, URL: opts.URL}
	if mo.Filename == "" {
		mo.Filename = base
	}
	if mo.URL == "" {
		// A relative reference to the name, escaped as hdig serve writes it
		// (a colon would read as a scheme, '#' end the path, '%' escape).
		mo.URL = (&url.URL{Path: base}).String()
		fmt.Fprintf(opts.IO.ErrOut, "hdig: no -u given: the control file names the file by the relative URL %s; serve both from one directory\n", mo.URL)
	}
	ctl, err := zsync.Make(bufio.NewReaderSize(f, 1<<20), size, mo)
	if err != nil {
		return usageErrorf("%s: %v", opts.File, err)
	}
	out := opts.Output
	if out == "" {
		out = base + ".zsync"
	}
	return writeDeltaOutput(opts.IO, out, func(w io.Writer) error {
		_, err := ctl.WriteTo(w)
		return err
	})
}

// openZsyncInput opens FILE, whose length the control file states before
// its first block: stdin ("-") or a file that is not regular (a pipe, a
// device, whose size reads 0) is first copied into an unlinked temporary
// file, and has no MTime.
func openZsyncInput(ios *IOStreams, name string) (*os.File, int64, time.Time, error) {
	var src io.Reader = ios.In
	if name != "-" {
		f, size, err := openDeltaInput(name)
		if err != nil {
			return nil, 0, time.Time{}, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, time.Time{}, usageErrorf("%v", err)
		}
		if st.Mode().IsRegular() {
			return f, size, st.ModTime(), nil
		}
		defer f.Close()
		src = f
	}
	tmp, err := os.CreateTemp("", "hdig-zsyncmake-*")
	if err != nil {
		return nil, 0, time.Time{}, usageErrorf("copy %s to a temporary file: %v", name, err)
	}
	os.Remove(tmp.Name()) // unlinked: gone when closed
	n, err := io.Copy(tmp, src)
	if err != nil {
		tmp.Close()
		return nil, 0, time.Time{}, usageErrorf("copy %s to a temporary file: %v", name, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		tmp.Close()
		return nil, 0, time.Time{}, usageErrorf("%v", err)
	}
	return tmp, n, time.Time{}, nil
}
