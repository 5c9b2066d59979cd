package zsync

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Read parses a control file. It refuses, with a one-line error, what
// zsync 0.6.2 would refuse and what it cannot use: a newer Min-Version,
// compressed targets (Z-Map2), unknown headers not listed in Safe:, sizes
// out of range, a block table longer or shorter than Length declares.
// Memory grows only with the bytes actually read.
func Read(r io.Reader) (*Control, error) { return ReadMax(r, 0) }

// OverMaxError is a control file whose Length is over ReadMax's bound.
type OverMaxError struct{ Length, Max int64 }

func (e *OverMaxError) Error() string {
	return fmt.Sprintf("zsync: the control file's Length is %d bytes, over %d", e.Length, e.Max)
}

// ReadMax is Read refusing, before its block table is read, a control
// file whose Length is over maxLength (0: no bound): an *OverMaxError.
func ReadMax(r io.Reader, maxLength int64) (*Control, error) {
	br := bufio.NewReader(io.LimitReader(r, maxHeaderBytes))
	c, err := readHeader(br)
	if err != nil {
		return nil, err
	}
	if maxLength > 0 && c.Length > maxLength {
		return nil, &OverMaxError{Length: c.Length, Max: maxLength}
	}
	// The header came through br; the table comes after what br buffered.
	rest := io.MultiReader(bytes.NewReader(peekAll(br)), r)
	if err := c.readTable(rest); err != nil {
		return nil, err
	}
	return c, nil
}

// peekAll returns what br has buffered and not yet returned.
func peekAll(br *bufio.Reader) []byte {
	b, _ := br.Peek(br.Buffered())
	return b
}

// header is what the header lines said, before checking.
type header struct {
	c        Control
	seen     map[string]bool
	safe     map[string]bool
	unknown  []string
	hashLens bool
	sha1     bool
}

func readHeader(br *bufio.Reader) (*Control, error) {
	h := &header{seen: map[string]bool{}, safe: map[string]bool{}}
	first := true
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("zsync: control file header: want lines ending in a blank line within %d bytes, got %d bytes without one", maxHeaderBytes, len(line))
			}
			return nil, fmt.Errorf("zsync: reading the control file: %w", err)
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if first {
				return nil, errors.New(`zsync: control file: want a first line "zsync: VERSION", got a blank line`)
			}
			return h.finish()
		}
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("zsync: control file header line %q: want \"Key: value\"", clip(line))
		}
		if first && key != "zsync" {
			return nil, fmt.Errorf("zsync: control file: want a first line \"zsync: VERSION\", got %q", clip(line))
		}
		first = false
		if err := h.field(key, value); err != nil {
			return nil, fmt.Errorf("zsync: control file header %s: %w", key, err)
		}
	}
}

// field takes one header line.
func (h *header) field(key, v string) error {
	if key != "URL" && key != "Safe" && h.seen[key] {
		return errors.New("appears twice")
	}
	h.seen[key] = true
	var err error
	switch key {
	case "zsync":
		if v == "" {
			err = errors.New("want a version, got nothing")
		}
	case "Min-Version":
		if versionLess(Version, v) {
			err = fmt.Errorf("the file needs zsync %s or later; this reader implements %s", clip(v), Version)
		}
	case "Filename":
		h.c.Filename = v
	case "MTime":
		h.c.MTime, err = time.Parse(time.RFC1123Z, v)
	case "Blocksize":
		h.c.Blocksize, err = parseInt(v, MinBlocksize, MaxBlocksize)
		if err == nil && !isPowerOfTwo(h.c.Blocksize) {
			err = fmt.Errorf("want a power of two, got %d", h.c.Blocksize)
		}
	case "Length":
		h.c.Length, err = parseInt64(v, 0, 1<<62)
	case "Hash-Lengths":
		err = h.hashLengths(v)
	case "URL":
		if len(h.c.URLs) == maxURLs {
			return fmt.Errorf("want at most %d URL lines", maxURLs)
		}
		h.c.URLs = append(h.c.URLs, v)
	case "SHA-1":
		err = h.sha1Value(v)
	case "Safe":
		for _, k := range strings.Fields(v) {
			h.safe[k] = true
		}
	case "Z-Map2", "Z-URL", "Z-Filename", "Recompress":
		err = errors.New("compressed targets are not supported (make the control file with zsyncmake -Z)")
	default:
		h.unknown = append(h.unknown, key)
	}
	if err != nil {
		return fmt.Errorf("%q: %w", clip(v), err)
	}
	return nil
}

func (h *header) hashLengths(v string) error {
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return errors.New("want seq_matches,rsum_bytes,checksum_bytes")
	}
	var err [3]error
	h.c.SeqMatches, err[0] = parseInt(parts[0], 1, 2)
	h.c.RsumBytes, err[1] = parseInt(parts[1], 1, 4)
	h.c.ChecksumBytes, err[2] = parseInt(parts[2], 3, MaxChecksumBytes)
	h.hashLens = true
	return errors.Join(err[:]...)
}

func (h *header) sha1Value(v string) error {
	b, err := hex.DecodeString(v)
	if err != nil || len(b) != len(h.c.SHA1) {
		return errors.New("want 40 hex digits")
	}
	copy(h.c.SHA1[:], b)
	h.sha1 = true
	return nil
}

// finish checks that the header says all the matcher needs.
func (h *header) finish() (*Control, error) {
	for _, k := range h.unknown {
		if !h.safe[k] {
			return nil, fmt.Errorf("zsync: control file header %q is unknown and not listed in the Safe header", clip(k))
		}
	}
	for _, k := range []string{"Blocksize", "Length", "SHA-1"} {
		if !h.seen[k] {
			return nil, fmt.Errorf("zsync: control file has no %s header", k)
		}
	}
	if !h.hashLens { // files from before Hash-Lengths kept everything
		h.c.SeqMatches, h.c.RsumBytes, h.c.ChecksumBytes = 1, 4, md4Size
	}
	if n := blockCount(h.c.Length, h.c.Blocksize); n > MaxBlocks {
		return nil, fmt.Errorf("zsync: control file: Length %d at Blocksize %d makes %d blocks, want at most %d (make it with a larger block size)", h.c.Length, h.c.Blocksize, n, MaxBlocks)
	}
	c := h.c
	return &c, nil
}

// readTable reads the per-block checksums; memory follows the bytes read.
func (c *Control) readTable(r io.Reader) error {
	n := c.Blocks()
	entry := c.RsumBytes + c.ChecksumBytes
	buf := make([]byte, entry)
	br := bufio.NewReader(r)
	for i := 0; i < n; i++ {
		if _, err := io.ReadFull(br, buf); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("zsync: control file block table: want %d blocks of %d bytes, got %d whole blocks", n, entry, i)
			}
			return fmt.Errorf("zsync: reading the control file: %w", err)
		}
		var rs uint32
		for _, b := range buf[:c.RsumBytes] {
			rs = rs<<8 | uint32(b)
		}
		if len(c.Rsums) == cap(c.Rsums) {
			// Doubled up to the declared count: append's smaller steps
			// allocated five times the table over the read.
			k := min(max(2*len(c.Rsums), 1024), n)
			c.Rsums = append(makeSlice[uint32](0, k), c.Rsums...)
			c.Checksums = append(makeSlice[byte](0, k*c.ChecksumBytes), c.Checksums...)
		}
		c.Rsums = append(c.Rsums, rs)
		c.Checksums = append(c.Checksums, buf[c.RsumBytes:]...)
	}
	if k, _ := br.Read(buf[:1]); k > 0 {
		return fmt.Errorf("zsync: control file block table: want %d blocks of %d bytes, got more bytes after them", n, entry)
	}
	return nil
}

func parseInt(s string, lo, hi int) (int, error) {
	n, err := parseInt64(s, int64(lo), int64(hi))
	return int(n), err
}

// parseInt64 is parseInt for lengths, which exceed an int on 32-bit systems.
func parseInt64(s string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want an integer from %d to %d", lo, hi)
	}
	return n, nil
}

// versionLess compares dotted versions numerically ("0.6.2" < "0.10").
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// clip shortens a value quoted in an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
