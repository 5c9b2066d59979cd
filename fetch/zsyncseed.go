package fetch

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/hdig/hdig/cache"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/verify"
	"github.com/hdig/hdig/zsync"
)

// seed looks for the target's blocks in --seed files, in the existing -o
// file (read before the new version replaces it) and in the cached
// versions of the file's URL, until every block is found.
func (z *zsyncRun) seed(m *zsync.Matcher) error {
	for _, s := range z.o.Seeds {
		if err := z.seedFrom(m, s); errors.Is(err, ErrTooLarge) {
			return fmt.Errorf("--seed: %w", err)
		} else if err != nil {
			return &inputError{fmt.Errorf("--seed: %w", err)}
		}
	}
	if fi, err := os.Stat(z.o.Output); err == nil && fi.Mode().IsRegular() && !m.Complete() {
		if err := z.seedFrom(m, z.o.Output); err != nil {
			return localError(err)
		}
	}
	store := z.cache()
	if store == nil {
		return nil
	}
	defer store.Close()
	versions, _ := store.Versions(z.fileURL)
	for _, e := range versions {
		if m.Complete() {
			break
		}
		b, err := store.Open(e)
		if err != nil {
			continue // corrupt versions are dropped by Open, with a warning
		}
		err = m.SeedAt(z.bound.readerAt(b), b.Size(), seedWorkers())
		b.Close()
		if err != nil {
			return fmt.Errorf("cached version %s of %s: %w", e.ETag, httpfield.Redact(z.fileURL), err)
		}
	}
	return nil
}

// cache opens the base-version cache, or returns nil (--no-cache, none).
func (z *zsyncRun) cache() *cache.Cache {
	if z.o.Cache == nil {
		return nil
	}
	return z.o.Cache()
}

func (z *zsyncRun) seedFrom(m *zsync.Matcher, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	return z.seedFile(m, f, name)
}

// maxStreamSeed is the most bytes read of a seed that is no regular file
// (a pipe, a device), for a target of length bytes. Such a seed is read in
// order until every block is found, and may never end (/dev/zero, <(yes)):
// an old version of the target, the seed a stream is for, is rarely over
// four times its length; past it the blocks not found are fetched.
func maxStreamSeed(length int64) int64 {
	if length > math.MaxInt64/4 { // a control file's Length: no overflow
		return math.MaxInt64
	}
	return max(4*length, 1<<20)
}

// seedFile is seedFrom with name opened as f, which it closes.
func (z *zsyncRun) seedFile(m *zsync.Matcher, f *os.File, name string) error {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() { // a FIFO, a device: read once, in order
		most := maxStreamSeed(z.ctl.Length)
		r := &io.LimitedReader{R: z.bound.reader(f), N: most}
		err = m.Seed(r)
		if err == nil && r.N == 0 && !m.Complete() {
			z.o.Warnf("--seed %s: read no further than %d bytes: it is no regular file and may not end; the blocks it did not give are fetched", name, most)
		}
	} else {
		err = m.SeedAt(z.bound.readerAt(f), fi.Size(), seedWorkers())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// verify reads the rebuilt file once, hashing it with every algorithm at
// once: SHA-1 against the control file's, the Repr-Digest of the file's
// HEAD (or first range response); it returns the file's sha-256 for the
// cache (nil when the file will not be cached: not computed).
func (z *zsyncRun) verify(f *os.File, res *Result) ([]byte, error) {
	// The HEAD's (or the first range response's) fields about the whole
	// representation: Repr-Digest, and those a plain get checks too (the
	// obsolete Digest, Unencoded-Digest, x-goog-hash, x-amz-checksum-*);
	// and any other Repr-Digest a range response carried: each describes
	// the file.
	var fields []verify.DigestField
	seen := ""
	if z.head != nil {
		fields = append(fields, reprFields(z.head.Header).all()...)
		seen = strings.Join(z.head.Header.Values(verify.ReprDigest), ", ")
	}
	for _, v := range z.reprs {
		if v != seen {
			fields = append(fields, verify.ParseDigestField(verify.ReprDigest, []string{v}))
		}
	}
	named := func(key string) bool {
		for _, f := range fields {
			if _, ok := f.Get(key); ok && f.Usable() {
				return true
			}
		}
		return false
	}
	algs := []verify.Algorithm{}
	for _, a := range verify.All {
		if a.Key == "sha-256" && z.caches(res) || a.Key == "sha" || named(a.Key) || z.expects(a.Key) {
			algs = append(algs, a)
		}
	}
	h := verify.NewHasher(algs)
	defer h.Close()
	if _, err := io.CopyBuffer(h, io.NewSectionReader(f, 0, z.ctl.Length), make([]byte, zsyncVerifyBuffer)); err != nil {
		// The output's I/O error (exit 2), never a mismatch: nothing was compared.
		return nil, &writeError{err: fmt.Errorf("read back %s to verify it: %w", f.Name(), err)}
	}
	sums := h.Sums()
	for _, d := range sums {
		if d.Algorithm == "sha" {
			if err := z.ctl.CheckSHA1(d.Value); err != nil {
				return nil, mismatch(err)
			}
		}
	}
	for _, f := range fields {
		res.Verdict.Add(verify.Compare(f, sums, z.base.Policy)...)
	}
	// The control file's SHA-1 (checked by Finish) goes through the one
	// comparison: sha-1 is deprecated, so it proves the file only when
	// --accept names sha; otherwise it is reported and Repr-Digest decides.
	ctlSum := verify.DigestField{Name: "zsync", Present: true, Digests: []verify.Digest{{Algorithm: "sha", Value: z.ctl.SHA1[:]}}}
	res.Verdict.Add(verify.Compare(ctlSum, []verify.Digest{{Algorithm: "sha", Value: z.ctl.SHA1[:]}}, z.base.Policy)...)
	// The user's digests (--expect, --checksum-file), as on any download.
	for _, e := range z.base.Expected {
		res.Verdict.Add(verify.Compare(e, sums, z.base.Policy)...)
	}
	if bad := res.Verdict.Mismatches(); len(bad) > 0 {
		return nil, fmt.Errorf("%w: %s %s of the rebuilt file", ErrMismatch, bad[0].Field, bad[0].Algorithm)
	}
	if z.base.RequireDigest && res.Outcome() != verify.Verified { // the rule of the verdict word
		return nil, fmt.Errorf("%w (--require-digest; accepted: %s)", ErrUnverified, strings.Join(z.base.Policy.Accept, ", "))
	}
	for _, d := range sums {
		if d.Algorithm == "sha-256" {
			return d.Value, nil
		}
	}
	if z.caches(res) {
		return nil, errors.New("developer error: no sha-256 computed")
	}
	return nil, nil
}

// caches reports whether store may link the new version into the cache.
func (z *zsyncRun) caches(res *Result) bool { return res.ETag != "" && z.o.Cache != nil }

// expects reports whether one of the user's digests is of algorithm key.
func (z *zsyncRun) expects(key string) bool {
	for _, f := range z.base.Expected {
		for _, d := range f.Digests {
			if a, ok := verify.Find(d.Algorithm); ok && a.Key == key {
				return true
			}
		}
	}
	return false
}

// store links the new version into the cache as a base for the next
// update, when the origin named it with a strong ETag and the Repr-Digest
// of the response that carried the ETag verified the rebuilt bytes. The
// bytes come from seeds and a control file, not from that response: a
// control file older than the file (all its blocks in the seeds) rebuilds
// the old version, and filed under the new ETag it would be answered 304
// and written as the new one. Range responses under the ETag prove only
// the blocks they brought.
func (z *zsyncRun) store(res *Result, sha []byte) {
	if !z.caches(res) || !res.Verdict.Verified(verify.ReprDigest) {
		return
	}
	c := z.cache()
	if c == nil {
		return
	}
	defer c.Close()
	e := cache.Entry{URL: z.fileURL, ETag: res.ETag, ReprDigest: res.Header.Get(verify.ReprDigest), ContentType: res.Header.Get("Content-Type")}
	if _, err := c.PutFile(e, z.o.Output, hex.EncodeToString(sha)); err != nil {
		res.Verdict.Warn(fmt.Sprintf("not cached: %v", err))
	}
}
