package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/verify"
)

func init() { register(newSignCmd) }

type signOptions struct {
	Key         string
	KeyID       string
	Alg         string
	Label       string
	Tag         string
	ContentType string
	Expires     time.Duration
	Digests     string
	File        string
	now         func() time.Time
}

func newSignCmd(ios *IOStreams) *cobra.Command {
	opts := &signOptions{now: time.Now}
	c := &cobra.Command{
		Use:   "sign --key KEY FILE",
		Short: "Sign FILE's Repr-Digest with an HTTP message signature (RFC 9421)",
		Long: `Compute FILE's Repr-Digest and sign it with an HTTP message signature
(RFC 9421) covering repr-digest (and content-type with --content-type),
for a file published on a host that cannot sign (FILE -: stdin). Prints three header
lines on stdout, to be sent with FILE's responses or kept beside it:

  Repr-Digest: sha-256=:…:
  Signature-Input: sig1=("repr-digest");created=…;keyid="…"
  Signature: sig1=:…:

KEY is a PEM private key (PKCS#8, PKCS#1 RSA, SEC 1 EC) or a raw HMAC
secret, as hdig keygen writes. The key id defaults to KEY's base name
without .pem. RSA keys need --alg.` + exitStatusHelp,
		Example: `  hdig keygen -o origin.pem
  hdig sign --key origin.pem app-1.2.iso > app-1.2.iso.sig
  hdig sign --key origin.pem --expires 720h --content-type application/octet-stream app.iso`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = args[0]
			return runSign(ios, opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Key, "key", "", "private key or HMAC secret `FILE` (required)")
	fl.StringVar(&opts.KeyID, "key-id", "", "keyid parameter (default: KEY's base name without .pem)")
	fl.StringVar(&opts.Alg, "alg", "", "signature `ALG`orithm (default: from the key; needed for RSA); also sent as the alg parameter")
	fl.StringVar(&opts.Label, "label", "sig1", "signature `LABEL` in Signature-Input and Signature")
	fl.StringVar(&opts.Tag, "tag", "", "tag parameter")
	fl.StringVar(&opts.ContentType, "content-type", "", "also sign this Content-Type (printed as a fourth line)")
	fl.DurationVar(&opts.Expires, "expires", 0, "expires parameter this long after created (default: none)")
	fl.StringVarP(&opts.Digests, "algorithm", "a", "sha-256", "Repr-Digest algorithms, comma-separated")
	return c
}

func runSign(ios *IOStreams, opts *signOptions) error {
	if opts.Key == "" {
		return usageErrorf("--key KEY is required")
	}
	if opts.Expires < 0 {
		return usageErrorf("--expires %s: want a positive duration", opts.Expires)
	}
	signer, err := loadSigner(opts.Key, opts.Alg)
	if err != nil {
		return err
	}
	algs, err := verify.ParseList(opts.Digests)
	if err != nil {
		return usageErrorf("-a: %v", err)
	}
	f, err := openStreamInput(ios, opts.File)
	if err != nil {
		return err
	}
	ds, _, err := verify.Sum(f, algs)
	f.Close()
	if err != nil {
		return usageErrorf("%s: %v", opts.File, err)
	}
	h := http.Header{}
	h.Set("Repr-Digest", verify.FormatDigests(ds))
	ids := []string{"repr-digest"}
	if opts.ContentType != "" {
		h.Set("Content-Type", opts.ContentType)
		ids = append(ids, "content-type")
	}
	p, err := signParams(opts, signer.Alg(), ids)
	if err != nil {
		return err
	}
	m := httpsig.ResponseMessage(&http.Response{StatusCode: http.StatusOK, Header: h}, nil)
	if _, err := httpsig.Sign(m, opts.Label, p, signer); err != nil {
		return usageErrorf("%v", err)
	}
	for _, name := range []string{"Repr-Digest", "Content-Type", "Signature-Input", "Signature"} {
		if v := h.Get(name); v != "" {
			fmt.Fprintf(ios.Out, "%s: %s\n", name, v)
		}
	}
	return nil
}

func signParams(opts *signOptions, alg string, ids []string) (httpsig.Params, error) {
	cs, err := httpsig.ParseComponents(ids)
	if err != nil {
		return httpsig.Params{}, err
	}
	now := opts.now().Truncate(time.Second)
	p := httpsig.Params{Components: cs, Created: now, KeyID: opts.KeyID, Tag: opts.Tag}
	if p.KeyID == "" {
		p.KeyID = strings.TrimSuffix(filepath.Base(opts.Key), ".pem")
	}
	if opts.Alg != "" {
		p.Alg = alg
	}
	if opts.Expires > 0 {
		p.Expires = now.Add(opts.Expires)
	}
	return p, nil
}

// loadSigner reads a signing key file for alg (empty: from the key).
func loadSigner(path, alg string) (httpsig.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("--key: %v", err)
	}
	k, err := httpsig.LoadSigningKey(b)
	if err != nil {
		return nil, usageErrorf("--key %s: %v", path, err)
	}
	s, err := httpsig.NewSigner(alg, k)
	if errors.Is(err, httpsig.ErrNeedAlg) {
		return nil, usageErrorf("--key %s: %s", path, needAlg("--alg"))
	} else if err != nil {
		return nil, usageErrorf("--key %s: %v", path, err)
	}
	return s, nil
}

// needAlg says which flag names the algorithm an RSA key needs.
func needAlg(flag string) string {
	return fmt.Sprintf("an RSA key needs %s %s or %s %s", flag, httpsig.RSAPSSSHA512, flag, httpsig.RSAV15SHA256)
}
