package httpsig

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"testing"
)

// Keys of types crypto/x509 cannot parse (Ed448, brainpool curves) are
// still public keys, certificates or private keys in DER: judged by their
// ASN.1 shape, not by whether Go knows the algorithm, they are refused as
// HMAC secrets (a public file taken as a secret lets anyone sign), with a
// line break after them too (found by the reread).
func TestUnknownAlgorithmKeysAreNoSecret(t *testing.T) {
	ed448 := asn1.ObjectIdentifier{1, 3, 101, 113}
	brainpool := asn1.ObjectIdentifier{1, 3, 36, 3, 3, 2, 8, 1, 1, 7}
	ecPublic := asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	key := make([]byte, 57)
	for i := range key {
		key[i] = byte(i*7 + 1)
	}
	must := func(v any) []byte {
		b, err := asn1.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	spki := must(struct {
		Algo pkix.AlgorithmIdentifier
		Key  asn1.BitString
	}{pkix.AlgorithmIdentifier{Algorithm: ed448}, asn1.BitString{Bytes: key, BitLength: 8 * len(key)}})
	bpParams := must(brainpool)
	bpSPKI := must(struct {
		Algo pkix.AlgorithmIdentifier
		Key  asn1.BitString
	}{pkix.AlgorithmIdentifier{Algorithm: ecPublic, Parameters: asn1.RawValue{FullBytes: bpParams}}, asn1.BitString{Bytes: append([]byte{4}, append(key, key[:7]...)...), BitLength: 8 * 65}})
	cert := must(struct {
		TBS  asn1.RawValue
		Algo pkix.AlgorithmIdentifier
		Sig  asn1.BitString
	}{asn1.RawValue{FullBytes: must(struct{ Serial int }{1})}, pkix.AlgorithmIdentifier{Algorithm: ed448}, asn1.BitString{Bytes: key, BitLength: 8 * len(key)}})
	pkcs8 := must(struct {
		Version int
		Algo    pkix.AlgorithmIdentifier
		Key     []byte
	}{0, pkix.AlgorithmIdentifier{Algorithm: ed448}, must(key)})
	sec1 := must(struct {
		Version int
		Key     []byte
		Params  asn1.ObjectIdentifier `asn1:"optional,explicit,tag:0"`
	}{1, key[:32], brainpool})
	for name, b := range map[string][]byte{
		"Ed448 SPKI":                  spki,
		"brainpool SPKI":              bpSPKI,
		"Ed448 certificate":           cert,
		"Ed448 SPKI and a newline":    append(append([]byte(nil), spki...), '\n'),
		"certificate and CRLF":        append(append([]byte(nil), cert...), '\r', '\n'),
		"Ed448 PKCS#8 private key":    pkcs8,
		"brainpool SEC 1 private key": sec1,
	} {
		if _, err := LoadVerifyingKey(b); err == nil {
			t.Errorf("%s: loaded as a %d-byte HMAC secret to verify with", name, len(b))
		}
		if _, err := LoadSigningKey(b); err == nil {
			t.Errorf("%s: loaded as a %d-byte HMAC secret to sign with", name, len(b))
		}
	}
}

// A text secret with a word that merely starts like an OpenSSH key type
// ("ssh-hmac") is a secret: an OpenSSH line is a key type followed by the
// base64 of a blob naming that type.
func TestSecretWithSSHWordLoads(t *testing.T) {
	secret := []byte("prod ssh-hmac shared secret for the origin 2026 xyz\n")
	if _, err := LoadVerifyingKey(secret); err != nil {
		t.Errorf("a text secret refused: %v", err)
	}
}
