package verify

import (
	"encoding/base64"
	"testing"
)

// The RFC 9530 example corpus, transcribed in rfc-notes §2. Bodies end in LF
// unless their name says otherwise.
const (
	bodyHello     = "{\"hello\": \"world\"}\n"
	bodyHelloNoLF = `{"hello": "world"}`                                                                                            // App. D
	bodyRange     = "\"world\"}\n"                                                                                                  // B.3, bytes 10-18
	bodyTitle     = "{\"title\": \"New Title\"}\n"                                                                                  // B.7, B.9 requests
	bodyBook      = "{\n  \"id\": \"123\",\n  \"title\": \"New Title\"\n}\n"                                                        // B.7, B.9 responses
	bodyStatus    = "{\n  \"status\": \"created\",\n  \"id\": \"123\",\n  \"ts\": 1569327729,\n  \"instance\": \"/books/123\"\n}\n" // B.8
	bodyNotFound  = "{\n  \"title\": \"Not Found\",\n  \"detail\": \"Cannot PATCH a non-existent resource\",\n  \"status\": 404\n}\n"
)

// brotliPublished is the B.4/B.6 response body as printed: an invalid Brotli
// stream (MLEN 18, 19 bytes follow) whose digests are not the ones printed.
// brotliFixed (MLEN 19) is the stream the printed digests belong to
// (rfc-notes §2.5, defect 1 of §2.15).
var (
	brotliPublished = "\x8b\x08\x80" + bodyHello + "\x03"
	brotliFixed     = "\x0b\x09\x80" + bodyHello + "\x03"
)

// Field values of the RFC, verbatim after RFC 8792 unfolding.
const (
	sha256Hello     = "RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg="
	sha512Hello     = "YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg=="
	sha256Empty     = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
	sha256Brotli    = "d435Qo+nKZ+gLcUHn7GQtQ72hiBVAgqoLsZnZPiTGPk="
	sha512Brotli    = "db7fdBbgZMgX1Wb2MjA8zZj+rSNgfmDCEEXM8qLWfpfoNY0sCpHAzZbj09X1/7HAb7Od5Qfto4QpuBsFbUO3dQ=="
	sha256HelloNoLF = "X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="

	overPadded = "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg==:" // B.5, B.6, B.11, C.1
)

// appendixD is RFC 9530 Appendix D as one Integrity field.
const appendixD = "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:, " +
	"sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, md5=:Sd/dVLAcvNLSq16eXua5uQ==:, " +
	"sha=:07CavjDP4u3/TungoUHJO/Wzr4c=:, unixsum=:GQU=:, unixcksum=:7zsHAA==:, adler=:OZkGFw==:, crc32c=:Q3lHIA==:"

// acceptAll is a policy under which every registered algorithm counts.
func acceptAll() Policy { return Policy{Accept: Keys()} }

// outcomeOf parses nothing: it hashes body with the algorithms f names and
// returns the verdict of comparing them under p.
func outcomeOf(t *testing.T, f DigestField, body string, p Policy) (Outcome, []Check) {
	t.Helper()
	var algs []Algorithm
	for _, d := range f.Digests {
		if a, ok := Lookup(d.Algorithm); ok {
			algs = append(algs, a)
		}
	}
	h := NewHasher(algs)
	defer h.Close()
	h.Write([]byte(body))
	var v Verdict
	v.Add(Compare(f, h.Sums(), p)...)
	return v.Outcome(), v.Checks
}

func mustB64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return b
}
