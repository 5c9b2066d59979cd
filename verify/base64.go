package verify

import "encoding/base64"

// b64 encodes a digest value for messages and JSON; nil becomes "".
func b64(p []byte) string {
	if p == nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(p)
}

// Base64 encodes a digest value as it appears inside a byte sequence.
func Base64(p []byte) string { return b64(p) }
