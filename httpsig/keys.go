package httpsig

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
)

// maxPEM bounds a key file.
const maxPEM = 64 << 10

var oidRSAPSS = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 10}

// PSSPublicKey is an RSA public key whose algorithm is id-RSASSA-PSS
// (RFC 4055, openssl's RSA-PSS keys): a key for RSASSA-PSS only, so for
// rsa-pss-sha512 only, where an rsaEncryption key serves both RSA
// algorithms.
type PSSPublicKey struct{ *rsa.PublicKey }

// PSSPrivateKey is the private key of a PSSPublicKey.
type PSSPrivateKey struct{ *rsa.PrivateKey }

// ParsePrivateKey reads the first PEM block of b: PKCS#8 "PRIVATE KEY"
// (ed25519, ECDSA, RSA, RSASSA-PSS: a PSSPrivateKey), PKCS#1 "RSA PRIVATE
// KEY" or SEC 1 "EC PRIVATE KEY".
func ParsePrivateKey(b []byte) (any, error) {
	blk, err := pemBlock(b)
	if err != nil {
		return nil, err
	}
	switch blk.Type {
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(blk.Bytes)
	case "EC PRIVATE KEY":
		return x509.ParseECPrivateKey(blk.Bytes)
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err == nil {
			return privateOnly(k)
		}
		if k, perr := parsePSSPrivate(blk.Bytes); perr == nil {
			return k, nil
		}
		return nil, fmt.Errorf("httpsig: PKCS#8 private key: %v", err)
	}
	return nil, fmt.Errorf("httpsig: PEM block %q, want PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY", blk.Type)
}

// ParsePublicKey reads the first PEM block of b: SPKI "PUBLIC KEY" (an
// RSASSA-PSS one is a PSSPublicKey) or PKCS#1 "RSA PUBLIC KEY". A private
// key is accepted too (its public half).
func ParsePublicKey(b []byte) (any, error) {
	blk, err := pemBlock(b)
	if err != nil {
		return nil, err
	}
	switch blk.Type {
	case "PUBLIC KEY":
		k, err := parseSPKI(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("httpsig: public key: %v", err)
		}
		return k, nil
	case "RSA PUBLIC KEY":
		return x509.ParsePKCS1PublicKey(blk.Bytes)
	}
	k, err := ParsePrivateKey(b)
	if err != nil {
		return nil, err
	}
	switch v := k.(type) {
	case ed25519.PrivateKey:
		return v.Public(), nil
	case *ecdsa.PrivateKey:
		return &v.PublicKey, nil
	case *rsa.PrivateKey:
		return &v.PublicKey, nil
	case PSSPrivateKey:
		return PSSPublicKey{&v.PublicKey}, nil
	}
	return nil, fmt.Errorf("httpsig: unsupported key type %T", k)
}

func pemBlock(b []byte) (*pem.Block, error) {
	if len(b) > maxPEM {
		return nil, fmt.Errorf("httpsig: key file of %d bytes, want at most %d", len(b), maxPEM)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("httpsig: no PEM block in the key")
	}
	return blk, nil
}

func privateOnly(k any) (any, error) {
	switch k.(type) {
	case ed25519.PrivateKey, *ecdsa.PrivateKey, *rsa.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("httpsig: unsupported private key type %T", k)
}

// parseSPKI reads a DER SPKI public key, those whose algorithm is
// id-RSASSA-PSS too (openssl's RSA-PSS keys), which crypto/x509 does not:
// the key inside is PKCS#1.
func parseSPKI(der []byte) (any, error) {
	k, err := x509.ParsePKIXPublicKey(der)
	if err == nil {
		return k, nil
	}
	var p struct {
		Algo pkix.AlgorithmIdentifier
		Key  asn1.BitString
	}
	if rest, perr := asn1.Unmarshal(der, &p); perr == nil && len(rest) == 0 && p.Algo.Algorithm.Equal(oidRSAPSS) {
		k, err := x509.ParsePKCS1PublicKey(p.Key.RightAlign())
		if err != nil {
			return nil, err
		}
		return PSSPublicKey{k}, nil
	}
	return nil, err
}

// parsePSSPrivate reads a PKCS#8 key whose algorithm is id-RSASSA-PSS,
// which crypto/x509 does not: the inner key is PKCS#1.
func parsePSSPrivate(der []byte) (PSSPrivateKey, error) {
	var p struct {
		Version    int
		Algo       pkix.AlgorithmIdentifier
		PrivateKey []byte
	}
	rest, err := asn1.Unmarshal(der, &p)
	if err != nil || len(rest) != 0 || !p.Algo.Algorithm.Equal(oidRSAPSS) {
		return PSSPrivateKey{}, fmt.Errorf("httpsig: not an RSASSA-PSS PKCS#8 key")
	}
	k, err := x509.ParsePKCS1PrivateKey(p.PrivateKey)
	return PSSPrivateKey{k}, err
}
