package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hdig/hdig/verify"
)

func init() { register(newSumCmd) }

// sumBufSize is the read size: big enough that the Hasher hashes several
// algorithms concurrently and per-read overhead vanishes.
const sumBufSize = 1 << 20

// maxCheckLine bounds a line of a --check list.
const maxCheckLine = 64 << 10

type sumOptions struct {
	algs          []verify.Algorithm
	algsSet       bool
	check         bool
	quiet         bool
	status        bool
	ignoreMissing bool
	files         []string
	format        sumFormat
}

func newSumCmd(ios *IOStreams) *cobra.Command {
	opts := &sumOptions{}
	c := &cobra.Command{
		Use:   "sum [-a ALG[,ALG...]] [FILE...]",
		Short: "Print the Repr-Digest field value of files, or check them (-c)",
		Long: `Print, for each FILE, "FILE: " and the Repr-Digest field value of its
content, computing every algorithm in one pass. With no FILE, or when FILE
is -, read standard input; if it is the only input, print the field value
alone, ready to paste into a header.

Algorithms (-a, comma-separated or repeated; default sha-256):
  ` + strings.Join(verify.AllKeys(), ", ") + `
(sha-384, crc32 and crc64nvme are not in the RFC 9530 registry.)

--format sri prints what goes into an integrity= attribute (sha256-…,
sha384-…, sha512-…, several separated by spaces), oci sha256:hex, and hex
the line sha256sum prints (one algorithm). All are read by get --expect.

With -c, read lists in the format sum prints, or the lines sha256sum (also
md5sum, sha512sum, and sum --format hex) and sha256sum --tag write (from
the LIST files, or standard input), and check each file against its line,
as sha256sum -c does:
print "FILE: OK" or "FILE: FAILED (sha-256: want X, got Y)". Every
registered algorithm on a line is checked, deprecated ones included: the
list is your own. Blank lines and lines starting with # are skipped. A file
name containing a backslash, CR or LF is written escaped, with the line
starting with a backslash, as coreutils does.

EXIT STATUS
  0    every file was hashed (with -c: every listed file matched)
  1    with -c: a file did not match its line
  2    bad flag, unreadable file or list, malformed list line
       (a mismatch takes precedence: 1)
  130  interrupted`,
		Example: `  hdig sum big.iso
  hdig sum -a sha-256,sha-512 *.tar.gz > SUMS
  hdig sum -c SUMS
  printf '{"hello": "world"}' | hdig sum`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.files = args
			if err := opts.validate(); err != nil {
				return err
			}
			if opts.check {
				return runSumCheck(c.Context(), ios, opts)
			}
			return runSum(c.Context(), ios, opts)
		},
	}
	fl := c.Flags()
	fl.VarP(&algFlag{opts: opts}, "algorithm", "a", "digest algorithms to compute, comma-separated (default sha-256)")
	fl.BoolVarP(&opts.check, "check", "c", false, "read lists of FILE: FIELD-VALUE lines and check the files")
	fl.BoolVarP(&opts.quiet, "quiet", "q", false, "with -c: don't print OK for each file that matched")
	fl.BoolVar(&opts.status, "status", false, "with -c: print nothing on stdout; the exit status tells")
	fl.BoolVar(&opts.ignoreMissing, "ignore-missing", false, "with -c: don't fail or report for files that don't exist")
	fl.StringVar((*string)(&opts.format), "format", string(formatRFC9530), "print `FORMAT`: rfc9530 (FILE: sha-256=:b64:), sri (sha384-b64, for integrity=), oci (sha256:hex), hex (sha256sum's HEX  FILE)")
	return c
}

func (o *sumOptions) validate() error {
	if o.check && o.algsSet {
		return usageErrorf("-a cannot be used with --check: each line names its algorithms")
	}
	if !o.check && (o.quiet || o.status || o.ignoreMissing) {
		return usageErrorf("--quiet, --status and --ignore-missing apply only with --check")
	}
	if !o.algsSet {
		a, _ := verify.Lookup("sha-256")
		o.algs = []verify.Algorithm{a}
	}
	return o.format.check(o.algs, o.check)
}

// algFlag is the -a flag: bad names fail at parse time, repeats add up.
type algFlag struct{ opts *sumOptions }

func (f *algFlag) String() string {
	keys := make([]string, len(f.opts.algs))
	for i, a := range f.opts.algs {
		keys[i] = a.Key
	}
	return strings.Join(keys, ",")
}

func (f *algFlag) Set(s string) error {
	list, err := verify.ParseList(s)
	if err != nil {
		return err
	}
	f.opts.algsSet = true
	for _, a := range list {
		if !hasAlgorithm(f.opts.algs, a.Key) {
			f.opts.algs = append(f.opts.algs, a)
		}
	}
	return nil
}

func (f *algFlag) Type() string { return "ALG[,ALG...]" }

func hasAlgorithm(algs []verify.Algorithm, key string) bool {
	for _, a := range algs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// runSum prints the field value of each file. An unreadable file is reported
// and skipped; the exit status is then 2.
func runSum(ctx context.Context, ios *IOStreams, opts *sumOptions) error {
	files := opts.files
	if len(files) == 0 {
		files = []string{"-"}
	}
	buf := make([]byte, sumBufSize)
	unreadable := 0
	for _, name := range files {
		ds, err := hashFile(ctx, ios, name, opts.algs, buf)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return err
			}
			linef(ios.ErrOut, "hdig: %v", err)
			unreadable++
			continue
		}
		fmt.Fprintln(ios.Out, opts.format.line(name, ds, name == "-" && len(files) == 1))
	}
	if unreadable > 0 {
		return exitSilently(ExitUsage)
	}
	return nil
}

// hashFile hashes a file ("-": standard input) with all algorithms in one
// pass, stopping when ctx is done.
func hashFile(ctx context.Context, ios *IOStreams, name string, algs []verify.Algorithm, buf []byte) ([]verify.Digest, error) {
	var r io.Reader = ios.In
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err // *fs.PathError names the file
		}
		defer f.Close()
		r = f
	}
	h := verify.NewHasher(algs)
	defer h.Close()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			return h.Sums(), nil
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, err
			}
			return nil, fmt.Errorf("read %s: %w", displayName(name), err)
		}
	}
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// formatSumLine writes "FILE: VALUE". A name with a backslash, CR or LF is
// escaped and the line starts with a backslash (coreutils' convention), so
// that every line stays one line.
func formatSumLine(name, value string) string {
	if !strings.ContainsAny(name, "\\\n\r") {
		return name + ": " + value
	}
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`)
	return `\` + r.Replace(name) + ": " + value
}
