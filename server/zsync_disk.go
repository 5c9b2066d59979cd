package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// Control files made are kept in the state directory too, in STATE/zsync
// (a diskStore, like the encoded variants), so that one pushed out of
// memory, or made before a restart, is read back instead of made again:
// a build hashes its whole file. Each is named by what its bytes depend
// on, FILEHEX.zsync-OPTSHEX.SUMHEX: the sha-256 of the file's content
// (which fixes its length, so the block size and hash lengths), the
// sha-256 of the header values the server chooses (the format's version,
// Filename, MTime as written, URL) and of controlFormat, and the sha-256 of the control file
// itself, checked when it is read back. It is looked up only when the
// file's sha-256 is known, trusted, for its version (the digest cache, the
// index): a file changed since has another ID and is hashed again.

const (
	// maxControlDisk bounds the bytes of the control files kept on disk.
	maxControlDisk = 1 << 30
	// controlFormat is part of every stored control file's name: change
	// it when zsync.Make would write other bytes for the same input.
	controlFormat = "hdig-1"
)

// openControlStore opens STATE/zsync; nil without a state directory.
func openControlStore(stateDir string) (*diskStore, error) {
	if stateDir == "" {
		return nil, nil
	}
	return openDiskStore(filepath.Join(stateDir, "zsync"), maxControlDisk)
}

// storedKey is the key in the disk store of the control file made with
// options o of the content whose sha-256 is sum; "" without a disk store
// or a sum.
func (c *zsyncCache) storedKey(sum []byte, o zsync.MakeOptions) string {
	if c.disk == nil || len(sum) != sha256.Size {
		return ""
	}
	h := sha256.New()
	for _, v := range []string{controlFormat, zsync.Version, o.Filename, o.MTime.UTC().Format(time.RFC1123Z), o.URL} {
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(sum) + ".zsync-" + hex.EncodeToString(h.Sum(nil))
}

// readBack reads back the control file stored under key for k, in a
// flight that requests for k join, so that they share one read; called
// with c.mu held, which it releases while reading. At most cap(c.reading)
// read backs of different files run at once: each holds its control file
// whole, and requests for many large files' would otherwise hold as many.
func (c *zsyncCache) readBack(k fileKey, key string) (control, bool) {
	f := &zsyncFlight{done: make(chan struct{}), retry: true}
	c.flights[k] = f
	c.mu.Unlock()
	read := false
	defer func() {
		if !read {
			// The read panicked (net/http recovers it): the flight ends as
			// a failed read back, its joiners go on to a build, and the
			// panic goes on up. Left open, it would hold every later
			// request for k.
			c.mu.Lock()
			delete(c.flights, k)
			close(f.done)
			c.mu.Unlock()
		}
	}()
	c.readWaiting.Add(1)
	c.reading <- struct{}{} // a read back is quick: waited for, as small builds are
	c.readWaiting.Add(-1)
	defer func() { <-c.reading }()
	c.reads.Add(1)
	if c.readHook != nil {
		c.readHook()
	}
	ctl, ok := c.readStored(key)
	read = true
	c.mu.Lock()
	delete(c.flights, k)
	if ok {
		c.put(k, ctl)
		f.ctl, f.retry = ctl, false
	}
	close(f.done)
	return ctl, ok
}

// readStored reads back the control file of key, checking its bytes
// against the sha-256 its name gives them; one that differs is removed.
func (c *zsyncCache) readStored(key string) (control, bool) {
	f, name, size, err := c.disk.open(key)
	if err != nil {
		return control{}, false
	}
	defer f.Close()
	var body []byte
	if size <= c.maxFile/64 { // larger than any control file made
		body, err = io.ReadAll(io.LimitReader(f, size+1))
	}
	sum := sha256.Sum256(body)
	if err != nil || body == nil || !bytes.Equal(sum[:], storedSum(name)) {
		c.disk.remove(key) // changed behind the server's back
		return control{}, false
	}
	return newControl(body, sum[:], true), true
}

// store keeps a control file made from a settled file in the disk store.
func (c *zsyncCache) store(key string, ctl control) error {
	if key == "" {
		return nil
	}
	_, err := c.disk.write(key, func(w io.Writer) ([]byte, error) {
		_, err := w.Write(ctl.body)
		return ctl.sum, err
	})
	return err
}

// knownSum is the trusted sha-256 of version id of name, when the digest
// cache or the index has it (no hashing); nil otherwise.
func (s *Server) knownSum(name string, id fileid.ID) []byte {
	if e := s.cache.peek(fileKey{name: name, id: id}); e != nil {
		if ds, ok := e.trustedDigests(); ok {
			for _, d := range ds {
				if d.Algorithm == sha256Alg.Key {
					return d.Value
				}
			}
		}
	}
	sum, _ := s.index.lookup(name, id)
	return sum
}

// makeControl makes the control file of base, open as f, with options o.
// known is the file's sha-256 when known. With a disk store, a settled
// file over storeMin bytes is hashed with sha-256 too, and the control
// file is stored under that sum (which the index learns) when it may be
// kept.
func (s *Server) makeControl(ctx context.Context, base string, f *os.File, fi os.FileInfo, o zsync.MakeOptions, known []byte) (control, error) {
	id := fileid.Of(fi)
	settledBefore := settled(id, time.Now(), s.cfg.settle)
	var src io.Reader = ctxReader{ctx, io.NewSectionReader(f, 0, fi.Size())}
	var whole hash.Hash
	if s.zsync.disk != nil && settledBefore && fi.Size() > s.zsync.storeMin {
		whole = sha256.New()
		src = io.TeeReader(src, whole)
	}
	ctl, err := zsync.Make(src, fi.Size(), o)
	if err != nil {
		return control{}, err
	}
	errChanged := errors.New("the file changed while its control file was made; retry")
	after, err := fileid.File(f)
	if err != nil || after != id {
		return control{}, errChanged
	}
	var buf bytes.Buffer
	ctl.WriteTo(&buf)
	// Kept for later requests only when the file had settled and its ID
	// is strong: as for digests (identity.go), a recent change may have
	// landed within one ctime tick of the read.
	keep := settledBefore && fileid.Same(id, after)
	// The ETag names the control file's own bytes: they depend on the
	// file's modification time and name too, not only on its content.
	sum := sha256.Sum256(buf.Bytes())
	cf := newControl(buf.Bytes(), sum[:], keep)
	if whole == nil || !keep {
		return cf, nil
	}
	content := whole.Sum(nil)
	if known != nil && !bytes.Equal(content, known) {
		// The file is the version known (its ID did not change while it
		// was read): the digest cache or the index is wrong, not the
		// file. Nothing is stored under either sum.
		s.cfg.logger.Warn("zsync control file not stored: the file's sha-256 is not the one recorded for its version", "path", base)
		return cf, nil
	}
	s.index.add(base, id, content)
	if err := s.zsync.store(s.zsync.storedKey(content, o), cf); err != nil {
		s.cfg.logger.Info("zsync control file not stored", "path", base, "err", err)
	}
	return cf, nil
}

// newControl is the control file body, whose sha-256 is sum.
func newControl(body, sum []byte, keep bool) control {
	sums := newEntry()
	sums.put([]verify.Digest{{Algorithm: sha256Alg.Key, Value: sum}}, true)
	return control{body: body, sum: sum, etag: etagFor(sum), sums: sums, keep: keep}
}
