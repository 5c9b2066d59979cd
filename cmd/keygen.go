package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hdig/hdig/httpsig"
)

func init() { register(newKeygenCmd) }

type keygenOptions struct {
	Alg    string
	Output string
	Force  bool
}

func newKeygenCmd(ios *IOStreams) *cobra.Command {
	opts := &keygenOptions{}
	c := &cobra.Command{
		Use:   "keygen -o KEY [-a ALG]",
		Short: "Make a key for HTTP message signatures (RFC 9421)",
		Long: `Make a signing key for HTTP message signatures (RFC 9421) and write it
to KEY as PEM PKCS#8 (mode 0600), its public key to KEY.pub as PEM SPKI.
For hmac-sha256, KEY holds 64 random bytes (the shared secret) and no
KEY.pub is written. Existing files are kept unless --force.

ALG is one of ed25519 (default), ecdsa-p256-sha256, ecdsa-p384-sha384,
rsa-pss-sha512, rsa-v1_5-sha256 (RSA keys are 3072 bits), hmac-sha256.` + exitStatusHelp,
		Example: `  hdig keygen -o origin.pem
  hdig keygen -a ecdsa-p256-sha256 -o origin-p256.pem`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runKeygen(ios, opts)
		},
	}
	fl := c.Flags()
	fl.StringVarP(&opts.Alg, "algorithm", "a", httpsig.Ed25519, "signature `ALG`orithm of the key")
	fl.StringVarP(&opts.Output, "output", "o", "", "write the private key to `KEY` and the public key to KEY.pub")
	fl.BoolVar(&opts.Force, "force", false, "replace existing KEY and KEY.pub")
	return c
}

func runKeygen(ios *IOStreams, opts *keygenOptions) error {
	if opts.Output == "" || opts.Output == "-" {
		return usageErrorf("-o KEY is required: a private key is never written to stdout")
	}
	k, err := httpsig.GenerateKey(opts.Alg)
	if err != nil {
		return usageErrorf("-a: %v", err)
	}
	priv, pub, err := httpsig.MarshalKey(k)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(opts.Output + ".pub"); pub != nil && !opts.Force && err == nil {
		// Checked before KEY is written: a new KEY beside the old KEY.pub
		// would be a pair that does not match.
		return usageErrorf("%s.pub exists; use --force to replace it", opts.Output)
	}
	if err := writeNew(opts.Output, priv, 0o600, opts.Force); err != nil {
		return err
	}
	if pub != nil {
		if err := writeNew(opts.Output+".pub", pub, 0o644, opts.Force); err != nil {
			return err
		}
		fmt.Fprintf(ios.ErrOut, "wrote %s and %s.pub (%s)\n", opts.Output, opts.Output, opts.Alg)
		return nil
	}
	fmt.Fprintf(ios.ErrOut, "wrote %s (%s shared secret)\n", opts.Output, opts.Alg)
	return nil
}

// writeNew writes b to name as a file of its own with mode, refusing to
// replace a file unless force. A new name is created with O_EXCL (no link
// there is followed); with force the key goes to a fresh temporary file
// beside name, renamed onto it: a replaced KEY does not keep the old file's
// permissions (a 0644 file stays readable by all), nor is a symbolic link at
// name written through.
func writeNew(name string, b []byte, mode os.FileMode, force bool) (err error) {
	var f *os.File
	if force {
		f, err = os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".hdig-tmp*")
		if err == nil {
			err = f.Chmod(mode) // CreateTemp made it 0600
		}
	} else {
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, os.ErrExist) {
			return usageErrorf("%s exists; use --force to replace it", name)
		}
	}
	if f == nil {
		return usageErrorf("%v", err)
	}
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && force {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name()) // a key half written is no key
	}
	return err
}
