package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hdig/hdig/nginxconf"
)

func init() { register(newIndexCmd) }

// indexOptions are the flags and argument of hdig index.
type indexOptions struct {
	IO    *IOStreams
	Dir   string
	Nginx string
}

func newIndexCmd(ios *IOStreams) *cobra.Command {
	opts := &indexOptions{IO: ios}
	c := &cobra.Command{
		Use:   "index DIR [--nginx FILE]",
		Short: "Write DIR's zsync control files and an nginx include serving Repr-Digest",
		Long: `Write FILE.zsync next to every file under DIR (as hdig zsyncmake would)
and, with --nginx FILE, an include for nginx's http {} block: a map of each
file's URI to its Repr-Digest (sha-256 and sha-512) and to the Link naming its
control file, and the add_header lines that send them. A stock nginx whose
root is DIR then serves correct Repr-Digest on 200, 206, 304 and HEAD.

Run it again after files change: only files whose identity (size, mtime,
ctime, inode) changed since the FILE was written are read again, and the
control files it wrote for files since deleted are removed. Names nginx
cannot be given safely (control characters, not UTF-8) are left out with a
warning.` + exitStatusHelp,
		Example: `  hdig index /srv/www --nginx /etc/nginx/conf.d/hdig-digests.conf && nginx -s reload`,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runIndex(opts)
		},
	}
	c.Flags().StringVar(&opts.Nginx, "nginx", "", "write the nginx include to `FILE` (read first: unchanged files are not hashed again)")
	return c
}

func runIndex(opts *indexOptions) error {
	fi, err := os.Stat(opts.Dir)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if !fi.IsDir() {
		return usageErrorf("%s: want a directory", opts.Dir)
	}
	o := nginxconf.Options{Warnf: func(f string, a ...any) { linef(opts.IO.ErrOut, "warning: "+f, a...) }}
	if opts.Nginx != "" {
		abs, err := filepath.Abs(opts.Nginx)
		if err != nil {
			return usageErrorf("%v", err)
		}
		o.Skip = []string{abs}
		if old, err := os.ReadFile(opts.Nginx); err == nil {
			o.Old = nginxconf.ReadState(bytes.NewReader(old))
		}
	}
	entries, st, err := nginxconf.Index(opts.Dir, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "hdig: %d files, %d read (%d control files written, %d of deleted files removed), %d left out\n", st.Files, st.Hashed, st.Controls, st.Removed, st.Refused)
	if opts.Nginx == "" {
		return nil
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := nginxconf.Write(&buf, dir, entries); err != nil {
		return err
	}
	return writeFileAtomic(opts.Nginx, buf.Bytes())
}

// writeFileAtomic replaces name with data through a temporary file.
func writeFileAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".hdig-tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
