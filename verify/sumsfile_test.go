package verify

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

var (
	h256 = hex.EncodeToString(helloSHA256[:])
	h384 = hex.EncodeToString(helloSHA384[:])
	h512 = hex.EncodeToString(helloSHA512[:])
)

var checksumEntriesTests = []struct {
	name, file string
	names      []string
	alg        string
	want       string // "alg:name" joined by ","
	err        string
}{
	{"sha256sum", h256 + "  other.iso\n" + h256 + "  app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"binary mark", h512 + " *app.iso\n", []string{"app.iso"}, "", "sha-512:app.iso", ""},
	{"crlf", h256 + "  app.iso\r\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"bsd tag", "SHA384 (app.iso) = " + h384 + "\nSHA256 (app.iso) = " + h256 + "\n", []string{"app.iso"}, "", "sha-384:app.iso,sha-256:app.iso", ""},
	{"bsd openssl", "SHA2-256(x)= ab\nSHA2-256 (app.iso) = " + h256 + "\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"path entry by base", h256 + "  ./dist/app.iso\n", []string{"app.iso"}, "", "sha-256:./dist/app.iso", ""},
	{"exact name first", h256 + "  dist/app.iso\n" + h512 + "  app.iso\n", []string{"app.iso"}, "", "sha-512:app.iso", ""},
	{"second name", h256 + "  url.iso\n", []string{"out.iso", "url.iso"}, "", "sha-256:url.iso", ""},
	{"escaped name", `\` + h256 + `  a\nb` + "\n", []string{"a\nb"}, "", "sha-256:a\nb", ""},
	{"comments skipped", "# SHA256SUMS\n\n" + h256 + "  app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"alg given", hex.EncodeToString(make([]byte, 16)) + "  app.iso\n", []string{"app.iso"}, "md5", "md5:app.iso", ""},
	{"duplicate agreeing", h256 + "  app.iso\n" + h256 + "  app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"duplicate differing", h256 + "  app.iso\n" + strings.Repeat("0", 64) + "  app.iso\n", []string{"app.iso"}, "", "", "lines 1 and 2 give app.iso two sha-256 digests"},
	// hdig sum's own lines: "FILE: " and an RFC 9530 field value.
	{"hdig sum", "other.iso: sha-256=:" + b64(helloSHA256[:]) + ":\napp: v1.iso: sha-256=:" + b64(helloSHA256[:]) + ":, sha-512=:" + b64(helloSHA512[:]) + ":\n", []string{"app: v1.iso"}, "", "sha-256:app: v1.iso,sha-512:app: v1.iso", ""},
	{"hdig sum escaped", `\a\nb: sha-256=:` + b64(helloSHA256[:]) + ":\n", []string{"a\nb"}, "", "sha-256:a\nb", ""},
	{"hdig sum repeated key differing", "app.iso: sha-256=:" + b64(helloSHA256[:]) + ":, sha-256=:" + b64(make([]byte, 32)) + ":\n", []string{"app.iso"}, "", "", "two sha-256 digests"},
	{"hdig sum unknown alg", "app.iso: foo=:AAAA:\n", []string{"app.iso"}, "", "", `line 1: app.iso: unknown digest algorithm "foo"`},
	{"hdig sum sri", "app.iso: sha384-" + b64(helloSHA384[:]) + "\n", []string{"app.iso"}, "", "sha-384:app.iso", ""},
	{"hdig sum oci", "app.iso: sha256:" + h256 + "\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	// hdig sum's line for another file that cannot be read (an algorithm
	// hdig does not know, as an unknown BSD tag is skipped; two values that
	// differ) is that file's error, not the whole list's.
	{"hdig sum other file unknown alg", "other.iso: sha3-256=:AAAA:\n" + h256 + "  app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"hdig sum other file conflicting", "other.iso: sha-256=:" + b64(helloSHA256[:]) + ":, sha-256=:" + b64(make([]byte, 32)) + ":\n" + h256 + "  app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"hdig sum own line unreadable", h256 + "  app.iso\napp.iso: sha3-256=:AAAA:\n", []string{"app.iso"}, "", "", `line 2: app.iso: unknown digest algorithm "sha3-256"`},
	{"prose skipped", "Note: see below\n" + h256 + "  app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"missing", h256 + "  other.iso\n", []string{"app.iso"}, "", "", `no entry for "app.iso" among 1 lines`},
	// A line for the name whose digest hdig cannot read (hex of no
	// algorithm's length, a tag it does not compute, a value that is not a
	// digest) keeps the look-up on that name: alone it is an error, not a
	// fall-back to another file's line that shares the last path element.
	{"own line truncated, no fall-back", h256[:62] + "  app.iso\n" + h256 + "  dist/app.iso\n", []string{"app.iso"}, "", "", "line 1: app.iso: 62 hex digits"},
	{"own line odd hex, no fall-back", h256[:63] + " *app.iso\n" + h256 + "  dist/app.iso\n", []string{"app.iso"}, "", "", "line 1: app.iso: "},
	{"own line unknown tag, no fall-back", "SHA224 (app.iso) = " + h256[:56] + "\n" + h256 + "  dist/app.iso\n", []string{"app.iso"}, "", "", "line 1: app.iso: SHA224"},
	{"own hdig sum line bad hex, no fall-back", "app.iso: " + h256[:62] + "\n" + h256 + "  dist/app.iso\n", []string{"app.iso"}, "", "", "line 1: app.iso: "},
	{"first name unreadable, no second name", h256[:62] + "  out.iso\n" + h256 + "  url.iso\n", []string{"out.iso", "url.iso"}, "", "", "line 1: out.iso: 62 hex digits"},
	{"byte order mark", "\ufeff" + h256 + "  app.iso\n" + h512 + "  dist/app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"own line unreadable beside a good one", h256[:62] + "  app.iso\n" + h256 + "  app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"own unknown tag beside a known one", "SHA3-256 (app.iso) = " + h256 + "\nSHA256 (app.iso) = " + h256 + "\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"other line unreadable", h256[:62] + "  other.iso\nSHA224 (other.iso) = " + h256[:56] + "\n" + h256 + "  app.iso\n", []string{"app.iso"}, "", "sha-256:app.iso", ""},
	{"b2sum tagged", "BLAKE2b (app.iso) = " + h512 + "\n", []string{"app.iso"}, "", "", "b2sum"},
	{"wrong length for alg", h256 + "  app.iso\n", []string{"app.iso"}, "sha-512", "", "sha-512 digest is 32 bytes, want 64"},
	{"too big", strings.Repeat("x", MaxChecksumFile+1), []string{"a"}, "", "", "over the 4194304-byte limit"},
	{"line too long", strings.Repeat("x", maxSumsLine+1), []string{"a"}, "", "", "limited to 65536 bytes"},
}

func TestChecksumEntries(t *testing.T) {
	for _, tt := range checksumEntriesTests {
		t.Run(tt.name, func(t *testing.T) {
			es, err := ChecksumEntries([]byte(tt.file), tt.names, tt.alg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range es {
				got = append(got, e.Digest.Algorithm+":"+e.Name)
			}
			if strings.Join(got, ",") != tt.want {
				t.Errorf("entries = %q, want %q", strings.Join(got, ","), tt.want)
			}
		})
	}
}

func TestChecksumEntriesNoEntryIs(t *testing.T) {
	_, err := ChecksumEntries([]byte(h256+"  a\n"), []string{"b"}, "")
	if !errors.Is(err, ErrNoEntry) {
		t.Errorf("error %v is not ErrNoEntry", err)
	}
}
