// Package httpsig implements HTTP Message Signatures (RFC 9421): the
// signature base (§2.5) over derived components and HTTP fields, the
// Signature-Input and Signature fields, and the algorithms of §3.3
// (ed25519, ecdsa-p256-sha256, ecdsa-p384-sha384, hmac-sha256,
// rsa-pss-sha512, rsa-v1_5-sha256).
//
// It depends only on the standard library and github.com/dunglas/httpsfv,
// and works on *http.Request and *http.Response (with its request for the
// `req` parameter). Every size taken from a message is bounded: see
// MaxSignatures, MaxComponents, MaxFieldLength and MaxBaseLength.
package httpsig

// Limits on what is parsed from a message or built into a signature base.
const (
	// MaxSignatures is the most labels a Signature-Input or Signature
	// field may hold.
	MaxSignatures = 16
	// MaxComponents is the most covered components of one signature.
	MaxComponents = 64
	// MaxFieldLength is the longest Signature-Input or Signature value
	// (all field lines together).
	MaxFieldLength = 16 << 10
	// MaxBaseLength is the longest signature base built.
	MaxBaseLength = 256 << 10
	// maxIdentifier is the longest component name or parameter value.
	maxIdentifier = 1024
)
