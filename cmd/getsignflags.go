package cmd

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hdig/hdig/fetch"
	"github.com/hdig/hdig/httpsig"
	"github.com/hdig/hdig/internal/smallfile"
	"github.com/spf13/pflag"
)

// getSignOptions are the flags of hdig get that demand signatures.
type getSignOptions struct {
	TrustKeys []string
	Skew      time.Duration
	MaxAge    time.Duration
}

func addGetSignFlags(f *pflag.FlagSet, o *getSignOptions) {
	f.StringArrayVar(&o.TrustKeys, "trust-key", nil, "trust RFC 9421 signatures by this key and require one over the digest that verified the bytes: `KEY` or ID=KEY, KEY a PEM public key file or a base64 Ed25519 public key (repeatable)")
	f.DurationVar(&o.Skew, "signature-skew", fetch.DefaultSignatureSkew, "clock skew allowed for a signature's created and expires (`DURATION`)")
	f.DurationVar(&o.MaxAge, "signature-max-age", 0, "refuse signatures created longer ago than this `DURATION` (0: no limit)")
}

// trust builds the fetch.Trust of the flags, nil without --trust-key.
func (o *getSignOptions) trust() (*fetch.Trust, error) {
	if len(o.TrustKeys) == 0 {
		return nil, nil
	}
	if o.Skew < 0 || o.MaxAge < 0 {
		return nil, usageErrorf("--signature-skew %s, --signature-max-age %s: want 0 or more", o.Skew, o.MaxAge)
	}
	t := &fetch.Trust{Skew: o.Skew, MaxAge: o.MaxAge}
	for _, arg := range o.TrustKeys {
		keys, err := parseTrustKey(arg)
		if err != nil {
			return nil, usageErrorf("--trust-key %s: %v", arg, err)
		}
		t.Keys = append(t.Keys, keys...)
	}
	return t, nil
}

// parseTrustKey reads KEY or ID=KEY. The whole argument is tried as a key
// first (a file name or a base64 key may contain '='); without ID the key
// verifies signatures of any keyid.
func parseTrustKey(arg string) ([]httpsig.Key, error) {
	pub, err := loadTrustKey(arg)
	id := ""
	if err != nil {
		i := strings.IndexByte(arg, '=')
		if i <= 0 {
			return nil, err
		}
		id = arg[:i]
		if pub, err = loadTrustKey(arg[i+1:]); err != nil {
			return nil, err
		}
	}
	return fetch.TrustedKeys(id, pub)
}

// loadTrustKey reads a public key: a file (PEM, or an HMAC secret), else
// the base64 of a raw Ed25519 public key (as in integrity="ed25519-…").
func loadTrustKey(s string) (any, error) {
	if s == "" {
		return nil, errors.New("empty key")
	}
	b, ferr := readKeyFile(s)
	if ferr == nil {
		return httpsig.LoadVerifyingKey(b)
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("not a readable key file (%v), nor the base64 of a %d-byte Ed25519 public key", ferr, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

// maxKeyFile bounds a key file read.
const maxKeyFile = 64 << 10

// readKeyFile reads a key file of at most maxKeyFile bytes.
func readKeyFile(name string) ([]byte, error) {
	b, err := smallfile.Read(name, maxKeyFile)
	if errors.Is(err, smallfile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: more than %d bytes, not a key", name, maxKeyFile)
	}
	return b, err
}
