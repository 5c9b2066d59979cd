package zsync

import (
	"bufio"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// MakeOptions are the choices zsyncmake leaves to its user.
type MakeOptions struct {
	Blocksize int       // 0: DefaultBlocksize(length)
	Filename  string    // Filename header ("" leaves it out)
	MTime     time.Time // MTime header (zero leaves it out)
	URL       string    // URL header ("" leaves it out)
}

// Make reads the length bytes of a target from r and returns its control
// file, with the block size and hash lengths zsyncmake 0.6.2 would choose.
// Memory grows with the number of blocks, not with the data.
func Make(r io.Reader, length int64, o MakeOptions) (*Control, error) {
	bs := o.Blocksize
	if bs == 0 {
		bs = DefaultBlocksize(length)
	}
	if !isPowerOfTwo(bs) || bs < MinBlocksize || bs > MaxBlocksize {
		return nil, fmt.Errorf("zsync: block size %d: want a power of two from %d to %d", bs, MinBlocksize, MaxBlocksize)
	}
	if length < 0 || blockCount(length, bs) > MaxBlocks {
		return nil, fmt.Errorf("zsync: length %d at block size %d: want at most %d blocks", length, bs, MaxBlocks)
	}
	for name, v := range map[string]string{"file name": o.Filename, "URL": o.URL} {
		if err := checkHeaderValue(name, v); err != nil {
			return nil, err
		}
	}
	c := &Control{Filename: o.Filename, MTime: o.MTime, Blocksize: bs, Length: length}
	c.SeqMatches, c.RsumBytes, c.ChecksumBytes = HashLengths(length, bs)
	if o.URL != "" {
		c.URLs = []string{o.URL}
	}
	if err := c.hashBlocks(r); err != nil {
		return nil, err
	}
	return c, nil
}

// hashBlocks fills the block table and SHA-1 from the target's bytes.
func (c *Control) hashBlocks(r io.Reader) error {
	n := c.Blocks()
	c.Rsums = make([]uint32, 0, n)
	c.Checksums = make([]byte, 0, n*c.ChecksumBytes)
	whole := sha1.New()
	block := make([]byte, c.Blocksize)
	mask := rsumMask(c.RsumBytes)
	h := newMD4()
	var got int64
	for {
		k, err := io.ReadFull(r, block)
		got += int64(k)
		if got > c.Length {
			return fmt.Errorf("zsync: target is longer than its declared %d bytes", c.Length)
		}
		if k > 0 {
			whole.Write(block[:k])
			clear(block[k:])
			c.Rsums = append(c.Rsums, join(rsum(block))&mask)
			h.Reset()
			h.Write(block)
			c.Checksums = h.Sum(c.Checksums)[:len(c.Rsums)*c.ChecksumBytes]
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("zsync: reading the target: %w", err)
		}
	}
	if got != c.Length {
		return fmt.Errorf("zsync: target has %d bytes, want %d", got, c.Length)
	}
	whole.Sum(c.SHA1[:0])
	return nil
}

// WriteTo writes the control file in zsyncmake 0.6.2's layout.
func (c *Control) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	cw := &countWriter{w: bw}
	fmt.Fprintf(cw, "zsync: %s\n", Version)
	if c.Filename != "" {
		fmt.Fprintf(cw, "Filename: %s\n", c.Filename)
	}
	if !c.MTime.IsZero() {
		fmt.Fprintf(cw, "MTime: %s\n", c.MTime.UTC().Format(time.RFC1123Z))
	}
	fmt.Fprintf(cw, "Blocksize: %d\nLength: %d\n", c.Blocksize, c.Length)
	fmt.Fprintf(cw, "Hash-Lengths: %d,%d,%d\n", c.SeqMatches, c.RsumBytes, c.ChecksumBytes)
	for _, u := range c.URLs {
		fmt.Fprintf(cw, "URL: %s\n", u)
	}
	fmt.Fprintf(cw, "SHA-1: %x\n\n", c.SHA1)
	var rs [4]byte
	for i, r := range c.Rsums {
		rs[0], rs[1], rs[2], rs[3] = byte(r>>24), byte(r>>16), byte(r>>8), byte(r)
		cw.Write(rs[4-c.RsumBytes:])
		cw.Write(c.checksum(i))
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

// countWriter counts bytes written and keeps the first error.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (cw *countWriter) Write(p []byte) (int, error) {
	if cw.err != nil {
		return 0, cw.err
	}
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	cw.err = err
	return n, err
}

// checkHeaderValue refuses values that would break the line format.
func checkHeaderValue(name, v string) error {
	if strings.ContainsAny(v, "\r\n") {
		return fmt.Errorf("zsync: %s %s contains a line break", name, strconv.Quote(v))
	}
	return nil
}
