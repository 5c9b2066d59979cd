package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/hdig/hdig/verify"
)

// checkStats counts the outcomes of a --check run.
type checkStats struct {
	lines       int // well-formed lines
	ok          int
	failed      int // files that did not match
	unreadable  int // listed files that could not be read
	unreadLists int // lists that could not be read
	malformed   int // lines that could not be parsed
	missing     int // files skipped by --ignore-missing
}

// runSumCheck checks the files named in the lists against their lines.
func runSumCheck(ctx context.Context, ios *IOStreams, opts *sumOptions) error {
	lists := opts.files
	if len(lists) == 0 {
		lists = []string{"-"}
	}
	var st checkStats
	buf := make([]byte, sumBufSize)
	for _, list := range lists {
		if err := checkList(ctx, ios, opts, list, buf, &st); err != nil {
			if errors.Is(err, context.Canceled) {
				return err
			}
			linef(ios.ErrOut, "hdig: %v", err)
			st.unreadLists++
		}
	}
	return checkSummary(ios, opts, lists, &st)
}

// checkList reads one list and checks its lines; it returns an error only
// when the list itself cannot be read.
func checkList(ctx context.Context, ios *IOStreams, opts *sumOptions, list string, buf []byte, st *checkStats) error {
	var r io.Reader = ios.In
	if list != "-" {
		f, err := os.Open(list)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxCheckLine)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, field, err := parseCheckLine(line)
		if err == nil && name == "-" && list == "-" {
			err = errors.New("cannot check standard input (-) when the list is read from it")
		}
		if err != nil {
			linef(ios.ErrOut, "hdig: %s: line %d: %v", displayName(list), lineNo, err)
			st.malformed++
			continue
		}
		st.lines++
		if err := checkFile(ctx, ios, opts, name, field, buf, st); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s: line %d: longer than %d bytes", displayName(list), lineNo+1, maxCheckLine)
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			return err // names the list already: "read DIR: is a directory"
		}
		return fmt.Errorf("read %s: %w", displayName(list), err)
	}
	return nil
}

// parseCheckLine parses one list line into the file name and its field.
func parseCheckLine(line string) (string, verify.DigestField, error) {
	// sha256sum's line, or sha256sum --tag's, first, as --checksum-file
	// reads a line (verify.ChecksumEntries): the stricter format, so that
	// a name containing ": sha-256=:…:" is the file sha256sum listed, not
	// "HEX  NAME" read as sum's line for another file.
	if e, ok, err := verify.ParseChecksumLine(line, ""); ok || err != nil {
		return e.Name, verify.DigestField{Name: verify.ReprDigest, Present: true, Digests: []verify.Digest{e.Digest}}, err
	}
	name, value, err := verify.ParseSumLine(line)
	if err != nil {
		return "", verify.DigestField{}, err
	}
	f := verify.ParseDigestField(verify.ReprDigest, []string{value})
	if !f.Usable() {
		return "", f, fmt.Errorf("bad field value %q: %s", value, f.Ignored)
	}
	if len(knownAlgorithms(f)) == 0 {
		return "", f, fmt.Errorf("no supported digest algorithm in %q (known: %s)", value, strings.Join(verify.Keys(), ", "))
	}
	return name, f, nil
}

func knownAlgorithms(f verify.DigestField) []verify.Algorithm {
	var algs []verify.Algorithm
	for _, d := range f.Digests {
		if a, ok := verify.Find(d.Algorithm); ok {
			algs = append(algs, a)
		}
	}
	return algs
}

// checkFile hashes one file and prints OK or FAILED. It returns an error
// only on interruption.
func checkFile(ctx context.Context, ios *IOStreams, opts *sumOptions, name string, f verify.DigestField, buf []byte, st *checkStats) error {
	algs := knownAlgorithms(f)
	ds, err := hashFile(ctx, ios, name, algs, buf)
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case err != nil && opts.ignoreMissing && errors.Is(err, fs.ErrNotExist):
		st.missing++
		return nil
	case err != nil:
		linef(ios.ErrOut, "hdig: %v", err)
		if !opts.status {
			fmt.Fprintln(ios.Out, formatSumLine(name, "FAILED open or read"))
		}
		st.unreadable++
		return nil
	}
	accept := verify.Policy{}
	for _, a := range algs {
		accept.Accept = append(accept.Accept, a.Key)
	}
	var bad []string
	for _, c := range verify.Compare(f, ds, accept) {
		if c.Result != verify.Mismatch {
			continue
		}
		if c.Reason != "" {
			bad = append(bad, c.Algorithm+": "+c.Reason)
		} else {
			bad = append(bad, fmt.Sprintf("%s: want %s, got %s", c.Algorithm, verify.Base64(c.Expected), verify.Base64(c.Actual)))
		}
	}
	if len(bad) > 0 {
		st.failed++
		if !opts.status {
			fmt.Fprintln(ios.Out, formatSumLine(name, "FAILED ("+strings.Join(bad, "; ")+")"))
		}
		return nil
	}
	st.ok++
	if !opts.quiet && !opts.status {
		fmt.Fprintln(ios.Out, formatSumLine(name, "OK"))
	}
	return nil
}

// checkSummary warns about what went wrong, as sha256sum does, and picks the
// exit status: 1 for any mismatch, else 2 for anything unreadable or
// malformed, else 0.
func checkSummary(ios *IOStreams, opts *sumOptions, lists []string, st *checkStats) error {
	if !opts.status {
		warn := func(n int, one, many string) {
			if n == 1 {
				linef(ios.ErrOut, "hdig: WARNING: 1 %s", one)
			} else if n > 1 {
				linef(ios.ErrOut, "hdig: WARNING: %d %s", n, many)
			}
		}
		warn(st.malformed, "line is improperly formatted", "lines are improperly formatted")
		warn(st.unreadLists, "list could not be read", "lists could not be read")
		warn(st.unreadable, "listed file could not be read", "listed files could not be read")
		warn(st.failed, "file did NOT match", "files did NOT match")
	}
	if st.failed > 0 {
		return exitSilently(ExitIntegrity)
	}
	if st.lines == 0 && st.unreadable == 0 && st.unreadLists == 0 {
		linef(ios.ErrOut, "hdig: %s: no properly formatted lines found", strings.Join(displayNames(lists), ", "))
		return exitSilently(ExitUsage)
	}
	if st.unreadable > 0 || st.unreadLists > 0 || st.malformed > 0 {
		return exitSilently(ExitUsage)
	}
	if st.ok == 0 && st.missing > 0 {
		linef(ios.ErrOut, "hdig: %s: no file was verified", strings.Join(displayNames(lists), ", "))
		return exitSilently(ExitUsage)
	}
	return nil
}

func displayNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = displayName(n)
	}
	return out
}
