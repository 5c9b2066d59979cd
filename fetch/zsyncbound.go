package fetch

import (
	"io"
	"sync"
	"sync/atomic"
)

// seedBound is where the zsync matcher writes the blocks it finds in
// seeds. A control file of many identical blocks can make a tiny seed fill
// a large file, so what seeds contribute is bound as rebuilt output is:
// Limits (--max-filesize, --max-ratio) over the seed bytes read.
// Parallel seed scans write and read through it at once.
type seedBound struct {
	out     io.WriterAt
	lim     Limits
	read    atomic.Int64 // seed bytes read
	mu      sync.Mutex
	written int64 // bytes written from seeds
	fetched bool  // seeding is over: blocks now come from the origin
}

func (b *seedBound) WriteAt(p []byte, off int64) (int, error) {
	b.mu.Lock()
	if !b.fetched {
		if err := b.lim.CheckRebuilt(b.written+int64(len(p)), b.read.Load()); err != nil {
			b.mu.Unlock()
			return 0, err
		}
		b.written += int64(len(p))
	}
	b.mu.Unlock()
	return b.out.WriteAt(p, off)
}

// done ends seeding: blocks written from now on come from the origin.
func (b *seedBound) done() {
	b.mu.Lock()
	b.fetched = true
	b.mu.Unlock()
}

// reader counts the seed bytes read through it.
func (b *seedBound) reader(r io.Reader) io.Reader { return &seedCounter{r, b} }

type seedCounter struct {
	r io.Reader
	b *seedBound
}

func (c *seedCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.b.read.Add(int64(n))
	return n, err
}

// readerAt counts the seed bytes read through it, from any goroutine.
func (b *seedBound) readerAt(r io.ReaderAt) io.ReaderAt { return &seedCounterAt{r, b} }

type seedCounterAt struct {
	r io.ReaderAt
	b *seedBound
}

func (c *seedCounterAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.b.read.Add(int64(n))
	return n, err
}
