package cmd

import (
	"fmt"

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
	return nil
}

// deviceSink holds the body back until verified, then writes it into the
// device or FIFO of -o.
func (o *getOptions) deviceSink() fetch.Sink {
	return &fetch.DeviceSink{Path: o.Output}
}
