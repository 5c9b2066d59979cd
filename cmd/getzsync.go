package cmd

import (
	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/zsync"
	"github.com/spf13/cobra"
)

// hdig get --zsync: the flags it takes, then fetch.Client.Zsync (the
// client engine: control file, seeds, ranges, checks). -C is accepted and
// changes nothing: every zsync run resumes.

func (o *getOptions) checkZsyncFlags() error {
	switch {
	case o.Strategy != "" && o.Strategy != "auto" && o.Strategy != "zsync":
		return usageErrorf("--strategy %s conflicts with --zsync, --seed and --zsync-url (they are --strategy zsync)", o.Strategy)
	case !o.Zsync && len(o.Seeds) > 0:
		return usageErrorf("--seed applies only with --zsync")
	case !o.Zsync && o.ZsyncURL != "":
		return usageErrorf("--zsync-url applies only with --zsync")
	case o.Output == "":
		return usageErrorf("--zsync needs -o FILE: blocks are written in place, then checked")
	case o.ranged() || o.Head || o.UploadFile != "" || len(o.Data) > 0 || o.DataBinary != "":
		return usageErrorf("--zsync cannot be used with -r (or a Range header), -I or a request body")
	}
	if len(o.Sign.TrustKeys) > 0 {
		// A check asked for and not made would be a verdict saying more
		// than the truth.
		return usageErrorf("--zsync cannot be used with --trust-key: the zsync path checks no signature")
	}
	if f := o.zsyncDrops(); f != "" {
		return usageErrorf("--zsync cannot be used with %s: the zsync path does not write or honour it", f)
	}
	if err := o.resolveOutput(); err != nil {
		return err
	}
	if o.special {
		return usageErrorf("--zsync writes blocks in place: -o %s is a device or FIFO, want a regular file", o.Output)
	}
	return nil
}

func runGetZsync(c *cobra.Command, ios *IOStreams, o *getOptions) error {
	if err := o.checkZsyncFlags(); err != nil {
		return err
	}
	zo, err := o.zsyncOptions(ios)
	if err != nil {
		return err
	}
	req, err := o.request()
	if err != nil {
		return err
	}
	client, err := o.client(req)
	if err != nil {
		return err
	}
	req.RetryDelay = o.Conn.RetryDelay
	o.verbose(ios, req)
	if err := o.Expect.resolve(c.Context(), ios, o, client, req); err != nil {
		return err
	}
	zo.Progress = progressFor(ios, o.Silent)
	res, err := client.Zsync(c.Context(), req, zo)
	if err == nil {
		o.remember(res)
	}
	return o.silenced(reportGet(ios, o, res, err))
}

// zsyncOptions are the flags' fetch.ZsyncOptions, but for the progress.
func (o *getOptions) zsyncOptions(ios *IOStreams) (fetch.ZsyncOptions, error) {
	zo := fetch.ZsyncOptions{Output: o.Output, Seeds: o.Seeds, Parallel: o.Parallel, Head: o.zsyncHead, Warnf: o.warnf(ios)}
	if o.ZsyncURL != "" {
		ref, err := zsync.Resolve(o.URL, o.ZsyncURL)
		if err != nil {
			return zo, usageErrorf("--zsync-url %q: %v", httpfield.Redact(o.ZsyncURL), urlProblem(err))
		}
		zo.ControlURL = ref
	}
	if !o.NoCache {
		zo.Cache = func() *cache.Cache {
			store, err := o.openCache(ios)
			if err != nil {
				linef(ios.ErrOut, "warning: no base-version cache: %v", err)
			}
			return store
		}
	}
	return zo, nil
}
