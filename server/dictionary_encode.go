package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"

	"github.com/hdig/hdig/dictionary"
)

// dictEncodes counts dictionary encodes made (tests count work with it).
var dictEncodes atomic.Int64

// dictEncodeTamper, when set (by tests), alters an encoder's output before
// it is checked.
var dictEncodeTamper func([]byte) []byte

// dictCodings returns the dictionary codings (dcb, dcz) the request may
// get: those Accept-Encoding lists by name with the highest non-zero
// qvalue, when that qvalue is at least the best of the other codings the
// server makes ("*" does not stand for dcb or dcz: RFC 9842 §6.1 has
// clients list them only when they hold a dictionary).
func dictCodings(h http.Header) []string {
	q, star := acceptedCodings(h)
	best := 0.0
	for _, enc := range encodings {
		w, ok := q[enc]
		if !ok {
			w = star
		}
		best = max(best, w)
	}
	top := 0.0
	for _, c := range []string{dictionary.CodingDCB, dictionary.CodingDCZ} {
		top = max(top, q[c])
	}
	if top <= 0 || top < best {
		return nil
	}
	var out []string
	for _, c := range []string{dictionary.CodingDCB, dictionary.CodingDCZ} {
		if q[c] == top {
			out = append(out, c)
		}
	}
	return out
}

// wantsDictionary reports whether a request might get a dictionary
// coding: it carries Available-Dictionary and accepts dcb or dcz.
func (s *Server) wantsDictionary(r *http.Request) bool {
	return s.dict != nil && r.Header.Get("Available-Dictionary") != "" && len(dictCodings(r.Header)) > 0
}

// dictionaryRep returns the dcb or dcz variant of the identity id (of
// file name, sha-256 sum, read through f) when the request names a kept
// dictionary it may use and the variant is built; nil otherwise (the
// caller negotiates as without dictionaries). When both codings are as
// welcome, the smaller is sent.
func (s *Server) dictionaryRep(r *http.Request, name string, id *Representation, sum []byte, f io.ReaderAt) (*Representation, func(), error) {
	if !s.wantsDictionary(r) || id.Size == 0 || id.Size > s.cfg.compressLimit {
		return nil, nil, nil
	}
	dh, err := dictionary.ParseAvailableDictionary(r.Header.Values("Available-Dictionary"))
	if err != nil {
		s.cfg.logger.Debug("Available-Dictionary ignored", "path", r.URL.Path, "err", err)
		return nil, nil, nil
	}
	if !s.dict.usable(dh[:], requestURL(r)) {
		return nil, nil, nil
	}
	var best *variant
	bestEnc := ""
	for _, c := range dictCodings(r.Header) {
		vr, err := s.encodedVariant(r, name, id, sum, dictEnc(c, dh[:]), f)
		if err != nil {
			if r.Context().Err() != nil {
				return nil, nil, err
			}
			if !errors.Is(err, errNotReady) {
				s.cfg.logger.Debug("dictionary variant not built", "path", r.URL.Path, "encoding", c, "err", err)
			}
			continue
		}
		if best != nil && best.size <= vr.size {
			vr.release()
			continue
		}
		if best != nil {
			best.release()
		}
		best, bestEnc = vr, c
	}
	if best == nil {
		return nil, nil, nil
	}
	return s.variantRep(r, id, best, bestEnc)
}

// usable reports whether a dictionary with sha-256 sum is kept for a file
// whose advertised pattern matches u.
func (d *dictRules) usable(sum []byte, u *url.URL) bool {
	for _, file := range d.store.FilesWithVersion(sum) {
		if d.allows(file, u) {
			return true
		}
	}
	return false
}

// dictEnc names a dictionary coding's variant: CODING-DICTHEX, so a
// variant is keyed by the sha-256 of the identity, the coding and the
// dictionary.
func dictEnc(coding string, dictSum []byte) string {
	return coding + "-" + hex.EncodeToString(dictSum)
}

// parseDictEnc splits a variant coding made by dictEnc.
func parseDictEnc(enc string) (coding string, dictSum []byte, ok bool) {
	c, h, found := strings.Cut(enc, "-")
	if !found || !isDictCoding(c) {
		return "", nil, false
	}
	sum, err := hex.DecodeString(h)
	if err != nil || len(sum) != sha256.Size {
		return "", nil, false
	}
	return c, sum, true
}

// encodeVariant writes src in enc to dst: a dictionary coding, or one of
// the server's compressions.
func (s *Server) encodeVariant(dst io.Writer, src io.Reader, enc string) error {
	coding, dictSum, ok := parseDictEnc(enc)
	if !ok {
		return compress(dst, src, enc)
	}
	return s.dictEncode(dst, src, coding, dictSum)
}

// dictEncode encodes src against the kept version whose sha-256 is
// dictSum and writes the result only after checking that it decodes to
// exactly the bytes read.
func (s *Server) dictEncode(dst io.Writer, src io.Reader, coding string, dictSum []byte) error {
	limit := s.cfg.compressLimit
	data, err := io.ReadAll(io.LimitReader(src, limit+1))
	if err != nil {
		return err
	}
	if int64(len(data)) > limit {
		return fmt.Errorf("%w: %s: want at most %d bytes to encode, got more", errCannotEncode, coding, limit)
	}
	dict, err := s.dict.read(dictSum, limit)
	if err != nil {
		return err
	}
	out, err := dictionary.Encode(coding, data, dict)
	if err != nil {
		return fmt.Errorf("%w: %w", errCannotEncode, err)
	}
	dictEncodes.Add(1)
	if dictEncodeTamper != nil {
		out = dictEncodeTamper(out)
	}
	back, err := dictionary.Decode(coding, out, dict, dictionary.Limits{MaxOutput: int64(len(data))})
	if err != nil || !bytes.Equal(back, data) {
		return fmt.Errorf("%w: %s: the encoded body does not decode to the file (%v)", errCannotEncode, coding, err)
	}
	_, err = dst.Write(out)
	return err
}

// read returns the bytes of the kept version whose sha-256 is sum, at
// most limit of them, checked against sum.
func (d *dictRules) read(sum []byte, limit int64) ([]byte, error) {
	for _, file := range d.store.FilesWithVersion(sum) {
		f, size, err := d.store.OpenVersion(file, sum)
		if err != nil {
			continue
		}
		if size > limit {
			f.Close()
			return nil, fmt.Errorf("%w: dictionary of %d bytes: want at most %d", errCannotEncode, size, limit)
		}
		b, err := readAllClose(f, size)
		if err != nil {
			continue
		}
		if got := sha256.Sum256(b); bytes.Equal(got[:], sum) {
			return b, nil
		}
	}
	return nil, fmt.Errorf("dictionary sha-256 %x: no kept version has it", sum)
}

func readAllClose(f *os.File, size int64) ([]byte, error) {
	defer f.Close()
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}
