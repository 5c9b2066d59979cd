package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/hdig/hdig/verify"
)

// TestMirrorVersionOneRule: a mirror's 206 (its header, or its trailer)
// is of another version by the rule an origin's is (versionDiffers, less
// the ETag and Last-Modified a mirror has its own of): the Repr-Digest is
// compared with every field the version's answers carried, the pieces'
// too when the first answer had none (download.late: a first 200 without
// Repr-Digest, --expect the proof that lets mirrors be asked). The
// mirror's checks compared only the first answer's Repr-Digest, so a
// mirror serving another version, saying so, was used: its bytes written,
// the whole then failed and only narrow repaired it ("corrupt").
func TestMirrorVersionOneRule(t *testing.T) {
	const n = 100
	a, b := genData(n, 1), genData(n, 2)
	newD := func() (*download, *source) {
		d := &download{total: n, header: http.Header{}, mir: &mirrorSet{}}
		d.late = verify.ParseDigestField(verify.ReprDigest, []string{sha256Field(a)})
		return d, &source{url: "http://m.test/f"}
	}
	answer := func(repr string, trailer bool) *http.Response {
		h := http.Header{"Content-Range": {fmt.Sprintf("bytes 0-9/%d", n)}, "Etag": {`"m"`}}
		resp := &http.Response{StatusCode: http.StatusPartialContent, Header: h, ContentLength: 10, Trailer: http.Header{}}
		if trailer {
			resp.Trailer.Set(verify.ReprDigest, repr)
		} else {
			h.Set(verify.ReprDigest, repr)
		}
		return resp
	}
	p := &piece{id: 1, start: 0, end: 10}
	for _, c := range []struct {
		name    string
		repr    []byte
		trailer bool
		skip    bool
	}{
		{"header of the pieces' version", a, false, false},
		{"header of another version", b, false, true},
		{"trailer of the pieces' version", a, true, false},
		{"trailer of another version", b, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, s := newD()
			resp := answer(sha256Field(c.repr), c.trailer)
			err := d.checkPieceFrom(s, resp, p, 0)
			if err == nil {
				err = d.pieceTrailer(s, resp, p, 0)
			}
			var skip *mirrorSkip
			if got := errors.As(err, &skip); got != c.skip {
				t.Fatalf("err %v; want a mirrorSkip %v", err, c.skip)
			}
			if c.skip && skip.landed != c.trailer {
				t.Errorf("landed %v, want %v (the trailer comes after the bytes)", skip.landed, c.trailer)
			}
		})
	}
}
