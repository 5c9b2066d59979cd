package cmd

import (
	"io"

	"github.com/hdig/hdig/fetch"
)

// seedBound is where the zsync matcher writes the blocks it finds in
// seeds. A control file of many identical blocks can make a tiny seed fill
// a large file, so what seeds contribute is bound as rebuilt output is:
// fetch.Limits (--max-filesize, --max-ratio) over the seed bytes read.
type seedBound struct {
	out     io.WriterAt
	lim     fetch.Limits
	read    int64 // seed bytes read
	written int64 // bytes written from seeds
	fetched bool  // seeding is over: blocks now come from the origin
}

func (b *seedBound) WriteAt(p []byte, off int64) (int, error) {
	if b.fetched {
		return b.out.WriteAt(p, off)
	}
	if err := b.lim.CheckRebuilt(b.written+int64(len(p)), b.read); err != nil {
		return 0, err
	}
	n, err := b.out.WriteAt(p, off)
	b.written += int64(n)
	return n, err
}

// reader counts the seed bytes read through it.
func (b *seedBound) reader(r io.Reader) io.Reader { return &seedCounter{r, b} }

type seedCounter struct {
	r io.Reader
	b *seedBound
}

func (c *seedCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.b.read += int64(n)
	return n, err
}
