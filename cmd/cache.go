package cmd

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/httpfield"
	"github.com/spf13/cobra"
)

// cacheOptions are the flags of hdig cache and its subcommands.
type cacheOptions struct {
	Dir   string
	JSON  bool
	URL   string
	Dicts bool // ls --dictionaries (cachedict.go)
}

func init() { register(newCacheCmd) }

func newCacheCmd(ios *IOStreams) *cobra.Command {
	o := &cacheOptions{}
	c := &cobra.Command{
		Use:   "cache",
		Short: "Inspect and manage the base-version cache",
		Long: `hdig keeps the versions it fetched as bases for RFC 3229 deltas: blobs
named by their sha-256, or, for downloads written with -o, the file's path
and sha-256 ("linked" versions). Every version is re-hashed before it is
used as a base.

The cache directory is --cache-dir, else $HDIG_CACHE_DIR, else the user
cache directory + /hdig. It must be the user's own: a directory owned by
another user or writable by others is not used (anyone who can write
there could plant a version).` + exitStatusHelp,
		Args: cacheArgs(0),
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.PersistentFlags().StringVar(&o.Dir, "cache-dir", "", "cache `DIR` (default $HDIG_CACHE_DIR, else the user cache directory + /hdig)")

	ls := &cobra.Command{
		Use:   "ls [URL]",
		Short: "List cached versions: URL, ETag, size, stored time, sha-256 prefix, linked file",
		Args:  cacheArgs(-1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.URL = args[0]
			}
			return runCacheLs(ios, o)
		},
	}
	ls.Flags().BoolVar(&o.JSON, "json", false, `print {"dir":…,"entries":[…]} on stdout`)
	ls.Flags().BoolVar(&o.Dicts, "dictionaries", false, `list the RFC 9842 compression dictionaries instead (--json: {"dir":…,"dictionaries":[…]})`)
	rm := &cobra.Command{
		Use:   "rm URL",
		Short: "Remove every cached version of URL",
		Args:  cacheArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.URL = args[0]
			return runCacheRm(ios, o)
		},
	}
	c.AddCommand(ls, rm,
		cacheSub(ios, o, "gc", "Drop dead versions, unreferenced blobs and stale temporary files", runCacheGC),
		cacheSub(ios, o, "clear", "Remove every cached version (linked files are left alone)", runCacheClear),
		cacheSub(ios, o, "path", "Print the cache directory", runCachePath))
	return c
}

// cacheSub builds a subcommand without arguments.
func cacheSub(ios *IOStreams, o *cacheOptions, use, short string, run func(*IOStreams, *cacheOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cacheArgs(0),
		RunE:  func(*cobra.Command, []string) error { return run(ios, o) },
	}
}

// cacheArgs accepts exactly n arguments, or at most one when n is -1; any
// other count is a usage error.
func cacheArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case n < 0 && len(args) > 1:
			return usageErrorf("%s takes at most one URL, got %d arguments", c.CommandPath(), len(args))
		case n >= 0 && len(args) != n && c.HasSubCommands():
			return usageHelpf(c, "unknown command %q for %q", args[0], c.CommandPath())
		case n >= 0 && len(args) != n:
			return usageErrorf("%s takes %s, got %d", c.CommandPath(), count(n, "argument"), len(args))
		}
		return nil
	}
}

// dir returns the cache directory the flags name.
func (o *cacheOptions) dir() (string, error) {
	if o.Dir != "" {
		return o.Dir, nil
	}
	d, err := cache.DefaultDir()
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	return d, nil
}

// open opens the cache, with its warnings going to stderr.
func (o *cacheOptions) open(ios *IOStreams) (*cache.Cache, error) {
	d, err := o.dir()
	if err != nil {
		return nil, err
	}
	c, err := cache.Open(d)
	if err != nil {
		return nil, usageErrorf("--cache-dir %s: %v", d, err)
	}
	c.Warnf = func(format string, a ...any) { linef(ios.ErrOut, "hdig: warning: "+format, a...) }
	return c, nil
}

func runCacheLs(ios *IOStreams, o *cacheOptions) error {
	c, err := o.open(ios)
	if err != nil {
		return err
	}
	defer c.Close()
	if o.Dicts {
		return listDicts(ios, o, c)
	}
	all, err := c.Entries()
	if err != nil {
		return err
	}
	es := []cache.Entry{}
	urls := map[string]bool{}
	var blobs int64
	for _, e := range all {
		if o.URL == "" || e.URL == o.URL {
			es = append(es, e)
			urls[e.URL] = true
			if !e.Linked() {
				blobs += e.Size
			}
		}
	}
	if o.JSON {
		enc := json.NewEncoder(ios.Out)
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			Dir     string        `json:"dir"`
			Entries []cache.Entry `json:"entries"`
		}{c.Dir, es})
	}
	for _, e := range es {
		fields := []string{e.URL, e.ETag, fmt.Sprint(e.Size), e.Stored.UTC().Format(time.RFC3339), e.SHA256[:12]}
		if e.Linked() {
			fields = append(fields, e.Path)
		}
		listLine(ios.Out, fields)
	}
	fmt.Fprintf(ios.ErrOut, "%s of %s, %s in blobs, in %s\n", count(len(es), "version"), count(len(urls), "URL"), humanBytes(blobs), c.Dir)
	return nil
}

func runCacheRm(ios *IOStreams, o *cacheOptions) error {
	c, err := o.open(ios)
	if err != nil {
		return err
	}
	defer c.Close()
	n, err := c.Remove(o.URL)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(ios.ErrOut, "nothing cached for %s\n", httpfield.Redact(o.URL))
		return nil
	}
	fmt.Fprintf(ios.ErrOut, "removed %s of %s\n", count(n, "version"), httpfield.Redact(o.URL))
	return nil
}

func runCacheGC(ios *IOStreams, o *cacheOptions) error {
	c, err := o.open(ios)
	if err != nil {
		return err
	}
	defer c.Close()
	removed, freed, err := c.GC()
	if err != nil {
		return err
	}
	fmt.Fprintf(ios.ErrOut, "removed %s (versions and stray files), freed %s\n", count(removed, "item"), humanBytes(freed))
	return nil
}

func runCacheClear(ios *IOStreams, o *cacheOptions) error {
	c, err := o.open(ios)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Clear(); err != nil {
		return err
	}
	fmt.Fprintf(ios.ErrOut, "cleared %s\n", c.Dir)
	return nil
}

func runCachePath(ios *IOStreams, o *cacheOptions) error {
	d, err := o.dir()
	if err != nil {
		return err
	}
	fmt.Fprintln(ios.Out, d)
	return nil
}

// count formats n and word, plural unless n is 1.
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
