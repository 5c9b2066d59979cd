package cmd

import (
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/server"
)

// serveSignOptions are the flags of hdig serve that sign responses.
type serveSignOptions struct {
	key      string
	keyID    string
	alg      string
	validity time.Duration
}

func addServeSignFlags(f *pflag.FlagSet, o *serveSignOptions) {
	f.StringVar(&o.key, "sign-key", "", "sign responses with this private key `FILE` (RFC 9421; PEM as hdig keygen writes)")
	f.StringVar(&o.keyID, "key-id", "", "keyid of the signatures (default: the --sign-key file's base name without .pem)")
	f.StringVar(&o.alg, "sign-alg", "", "signature `ALG`orithm (default: from the key; needed for RSA)")
	f.DurationVar(&o.validity, "sign-expires", server.DefaultSignatureValidity, "expires parameter this `DURATION` after created (0: none)")
}

// signOption is the server option for --sign-key, nil without it.
func (o *serveSignOptions) signOption() (server.Option, error) {
	if o.key == "" {
		if o.keyID != "" || o.alg != "" {
			return nil, usageErrorf("--key-id and --sign-alg need --sign-key")
		}
		return nil, nil
	}
	if o.validity < 0 {
		return nil, usageErrorf("--sign-expires %s: want a positive duration or 0", o.validity)
	}
	b, err := readKeyFile(o.key)
	if err != nil {
		return nil, usageErrorf("--sign-key: %v", err)
	}
	k, err := httpsig.LoadSigningKey(b)
	if err != nil {
		return nil, usageErrorf("--sign-key %s: %v", o.key, err)
	}
	if _, err := httpsig.NewSigner(o.alg, k); errors.Is(err, httpsig.ErrNeedAlg) {
		return nil, usageErrorf("--sign-key %s: %s", o.key, needAlg("--sign-alg"))
	} else if err != nil {
		return nil, usageErrorf("--sign-key %s: %v", o.key, err)
	}
	id := o.keyID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(o.key), ".pem")
	}
	return server.WithSigningKey(k, o.alg, id, o.validity), nil
}
