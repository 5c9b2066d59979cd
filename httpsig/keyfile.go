package httpsig

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"fmt"
)

// LoadSigningKey reads a key file: PEM (see ParsePrivateKey), else the
// whole file is a raw HMAC secret.
func LoadSigningKey(b []byte) (any, error) {
	if isPEM(b) {
		return ParsePrivateKey(b)
	}
	return rawSecret(b)
}

// LoadVerifyingKey reads a key file: PEM (see ParsePublicKey), else the
// whole file is a raw HMAC secret.
func LoadVerifyingKey(b []byte) (any, error) {
	if isPEM(b) {
		return ParsePublicKey(b)
	}
	return rawSecret(b)
}

func isPEM(b []byte) bool {
	return bytes.Contains(b, []byte("-----BEGIN "))
}

func rawSecret(b []byte) ([]byte, error) {
	if len(b) > maxPEM {
		return nil, fmt.Errorf("httpsig: secret of %d bytes, want at most %d", len(b), maxPEM)
	}
	if len(b) < MinHMACKey {
		return nil, fmt.Errorf("httpsig: not a PEM key, and %d bytes are too few for an HMAC secret (want at least %d)", len(b), MinHMACKey)
	}
	if isDERPrivate(b) {
		return nil, fmt.Errorf("httpsig: not a PEM key, and it is a DER private key, not an HMAC secret: give it in PEM (openssl pkey -inform DER -in KEY -out KEY.pem)")
	}
	if what := publicKeyForm(b); what != "" {
		return nil, fmt.Errorf("httpsig: not a PEM key, and %s, not an HMAC secret: anyone who knows it could forge an hmac-sha256 signature (give a PEM key, or an Ed25519 key's base64 as the argument itself; an HMAC secret must not look like a public key: `openssl rand -base64 48`)", what)
	}
	return append([]byte(nil), b...), nil
}

// isDERPrivate says b (or b without the white space around it) is a
// private key in DER: by its ASN.1 shape, PKCS#8 or SEC 1, whatever the
// algorithm (crypto/x509 knows neither Ed448 nor brainpool curves), or a
// PKCS#1 RSA key.
func isDERPrivate(b []byte) bool {
	for _, d := range [][]byte{b, bytes.TrimSpace(b)} {
		var p8 struct {
			Version int
			Algo    pkix.AlgorithmIdentifier
			Key     []byte
			Attrs   asn1.RawValue `asn1:"optional,tag:0"`
			Pub     asn1.RawValue `asn1:"optional,tag:1"`
		}
		var sec1 struct {
			Version int
			Key     []byte
			Params  asn1.RawValue `asn1:"optional,explicit,tag:0"`
			Pub     asn1.RawValue `asn1:"optional,explicit,tag:1"`
		}
		if whole(d, &p8) || whole(d, &sec1) && sec1.Version == 1 {
			return true
		}
		if _, err := x509.ParsePKCS1PrivateKey(d); err == nil {
			return true
		}
	}
	return false
}

// whole says b is exactly one ASN.1 value of v's shape.
func whole(b []byte, v any) bool {
	rest, err := asn1.Unmarshal(b, v)
	return err == nil && len(rest) == 0
}

// publicKeyForm names the public form b is in (a DER public key or
// certificate, an OpenSSH line, with options or not, an RFC 4716 key, a
// JWK, the base64 (any alphabet, padded or not) or hex of a DER key or
// certificate, the padded base64 of a raw Ed25519 key as SRI writes it),
// "" if none: a public key taken for a secret would let anyone sign. Other
// encodings of 32 bytes are the usual forms of an HMAC secret (`openssl
// rand -hex 32`, Python's secrets.token_urlsafe()) and are taken as one; a
// raw Ed25519 key given that way fails on the origin's first ed25519
// signature (an HMAC key cannot verify it: exit 1), so the mistake shows.
func publicKeyForm(b []byte) string {
	if what := derForm(b); what != "" {
		return "it is a DER " + what
	}
	t := bytes.TrimSpace(b)
	if bytes.HasPrefix(t, []byte("---- BEGIN SSH2 PUBLIC KEY")) {
		return "it is an RFC 4716 (SSH2) public key"
	}
	if sshLine(bytes.Fields(t)) {
		return "it is an OpenSSH public key"
	}
	if bytes.HasPrefix(t, []byte("{")) && bytes.Contains(t, []byte(`"kty"`)) {
		return "it is a JWK"
	}
	if raw, err := base64.StdEncoding.DecodeString(string(t)); err == nil && len(raw) == ed25519.PublicKeySize {
		return "it is the base64 of a 32-byte (Ed25519) public key"
	}
	for _, dec := range []func(string) ([]byte, error){
		base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString, hex.DecodeString,
	} {
		if raw, err := dec(string(t)); err == nil {
			if what := derForm(raw); what != "" {
				return "it is the base64 or hex of a DER " + what
			}
		}
	}
	return ""
}

// sshLine says the words of a line hold an OpenSSH public key, options
// before it or not: a key type (ssh-…, ecdsa-sha2-…, sk-…) followed by the
// base64 of a blob that starts with that type's name.
func sshLine(words [][]byte) bool {
	for i, f := range words[:max(len(words)-1, 0)] {
		known := false
		for _, p := range []string{"ssh-", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-"} {
			known = known || bytes.HasPrefix(f, []byte(p))
		}
		if !known {
			continue
		}
		blob, err := base64.StdEncoding.DecodeString(string(words[i+1]))
		if err == nil && len(blob) >= 4 && int(binary.BigEndian.Uint32(blob)) == len(f) && bytes.HasPrefix(blob[4:], f) {
			return true
		}
	}
	return false
}

// derForm names the public DER structure b (or b without the white space
// around it) is, "" if none: by its ASN.1 shape, whatever the algorithm
// (crypto/x509 knows neither Ed448 nor brainpool curves), an SPKI public
// key, or a certificate, which carries one; or a PKCS#1 RSA public key.
func derForm(b []byte) string {
	for _, d := range [][]byte{b, bytes.TrimSpace(b)} {
		var spki struct {
			Algo pkix.AlgorithmIdentifier
			Key  asn1.BitString
		}
		var cert struct {
			TBS  asn1.RawValue
			Algo pkix.AlgorithmIdentifier
			Sig  asn1.BitString
		}
		switch {
		case whole(d, &spki):
			return "(SPKI) public key"
		case whole(d, &cert):
			return "certificate"
		}
		if _, err := x509.ParsePKCS1PublicKey(d); err == nil {
			return "(PKCS#1) RSA public key"
		}
	}
	return ""
}

// GenerateKey makes a new key for alg: ed25519, ECDSA P-256 or P-384, RSA
// 3072 bits, or a 64-byte HMAC secret.
func GenerateKey(alg string) (any, error) {
	switch alg {
	case Ed25519:
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return k, err
	case ECDSAP256SHA256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case ECDSAP384SHA384:
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case RSAPSSSHA512, RSAV15SHA256:
		return rsa.GenerateKey(rand.Reader, 3072)
	case HMACSHA256:
		k := make([]byte, 64)
		_, err := rand.Read(k)
		return k, err
	}
	return nil, fmt.Errorf("httpsig: unknown algorithm %q, want one of %s, %s, %s, %s, %s, %s", alg,
		Ed25519, ECDSAP256SHA256, ECDSAP384SHA384, RSAPSSSHA512, RSAV15SHA256, HMACSHA256)
}

// MarshalKey encodes a private key as PEM PKCS#8 and its public key as PEM
// SPKI; an HMAC secret is returned as it is, with no public part.
func MarshalKey(priv any) (private, public []byte, err error) {
	if s, ok := priv.([]byte); ok {
		return append([]byte(nil), s...), nil, nil
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, fmt.Errorf("httpsig: %v", err)
	}
	var pub any
	switch k := priv.(type) {
	case ed25519.PrivateKey:
		pub = k.Public()
	case *ecdsa.PrivateKey:
		pub = &k.PublicKey
	case *rsa.PrivateKey:
		pub = &k.PublicKey
	}
	pder, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, fmt.Errorf("httpsig: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder}), nil
}
