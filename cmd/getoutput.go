package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hdig/hdig/fetch"
)

// resolveOutput looks at -o FILE before anything is fetched: a directory
// (or a socket, a block device) is a usage error; a symbolic link is
// followed, so the part file goes beside its target and is renamed onto
// it; a character device or FIFO (/dev/null, a pipe) is written into once
// the bytes verified, never replaced.
func (o *getOptions) resolveOutput() error {
	if o.Output == "" {
		return nil
	}
	if o.Out.RemoteHeaderName {
		// -J's hidden name is hdig's own, as a part's is: a link or FIFO
		// someone put there (a shared directory) is removed, never
		// followed, or the download would replace the file a link names
		// and then move it beside that file under the origin's name.
		// It is not resolved, now or later: the sink writes that very
		// name (fetch.NewScratchSink, DownloadOptions.Scratch), so a link
		// put back there meanwhile is replaced, not followed.
		if err := fetch.ClearScratch(o.Output); err != nil {
			return withExit(ExitUsage, fmt.Errorf("-J: %w", err))
		}
		return nil
	}
	out, err := fetch.ResolveOutput(o.Output)
	if err != nil {
		return withExit(ExitUsage, err)
	}
	if out.Special && o.Continue {
		return usageErrorf("-C: -o %s is a device or FIFO, which cannot be resumed", o.Output)
	}
	o.Output, o.special = out.Path, out.Special
	return o.clash(o.Output)
}

// clash refuses -D FILE or -c FILE naming the file output (-o, -O)
// replaces: -D's headers would follow the verified body (and -D empties
// its file before the run), -c's jar would replace it, exit 0. A device or
// FIFO (-o /dev/null -D /dev/null) is written into by each: no clash.
func (o *getOptions) clash(output string) error {
	for _, x := range []struct{ name, flag string }{{o.Out.DumpHeader, "-D"}, {o.Req.CookieJar, "-c"}} {
		if x.name != "" && x.name != "-" && output != "" && output != "-" && sameRegular(x.name, output) {
			return usageErrorf("%s %s is the file the verified body is written to: its text would replace or follow the body", x.flag, x.name)
		}
	}
	return nil
}

// sameRegular says a and b name one regular file, or one new name.
func sameRegular(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return sa.Mode().IsRegular() && os.SameFile(sa, sb)
	}
	absA, err1 := realName(a)
	absB, err2 := realName(b)
	return err1 == nil && err2 == nil && absA == absB
}

// realName is the absolute name of the file name, its directory's links
// followed: a file not there yet is named by where it would be made.
func realName(name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return abs, nil
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// deviceSink holds the body back until verified, then writes it into the
// device or FIFO of -o.
func (o *getOptions) deviceSink() fetch.Sink {
	return &fetch.DeviceSink{Path: o.Output}
}
