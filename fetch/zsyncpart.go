package fetch

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"

	"github.com/hdig/hdig/internal/ownfile"
	"github.com/hdig/hdig/zsync"
)

// An interrupted zsync run keeps what it fetched: OUT.hdig-part stays with
// OUT.hdig-zsync, which binds it to the control file (SHA-1, Length,
// Blocksize) and the origin's ETag. The next run takes a part bound to the
// same control file and ETag as its output and keeps the blocks already at
// their place (each checked by rsum and MD4, as fetched ones are); any
// other part (another version, a plain download's) becomes
// OUT.hdig-zsync-seed, read as any seed at every offset, then removed. So
// nothing fetched is lost and no block of another version is kept unchecked.

const (
	zsyncSideSuffix = ZsyncSidecarSuffix // the part's binding
	zsyncSeedSuffix = ".hdig-zsync-seed" // a part of another version
	maxZsyncSide    = 4 << 10
)

// zsyncSide is what OUT.hdig-zsync records.
type zsyncSide struct {
	SHA1      string `json:"sha1"` // the control file's, hex
	Length    int64  `json:"length"`
	Blocksize int    `json:"blocksize"`
	ETag      string `json:"etag,omitempty"`
}

func (z *zsyncRun) side() zsyncSide {
	s := zsyncSide{SHA1: hex.EncodeToString(z.ctl.SHA1[:]), Length: z.ctl.Length, Blocksize: z.ctl.Blocksize}
	if z.head != nil {
		if t := z.head.Header.Get("ETag"); len(t) > 0 && t[0] == '"' {
			s.ETag = t
		}
	}
	return s
}

// bound reports whether a part saved with s is a part of this run's
// target: same control file and, when both are known, the same ETag.
func (s zsyncSide) bound(now zsyncSide) bool {
	etag := s.ETag == "" || now.ETag == "" || s.ETag == now.ETag
	return s.SHA1 == now.SHA1 && s.Length == now.Length && s.Blocksize == now.Blocksize && etag
}

// readZsyncSide reads OUT.hdig-zsync; ok is false when it is absent or
// unreadable (the part is then only a seed).
func readZsyncSide(path string) (s zsyncSide, ok bool) {
	b, err := ownfile.Read(path, maxZsyncSide)
	if err != nil || json.Unmarshal(b, &s) != nil {
		return zsyncSide{}, false
	}
	return s, true
}

func writeZsyncSide(path string, s zsyncSide) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return ReplaceFile(path, append(b, '\n'))
}

// openPart opens OUT.hdig-part for this run: the part of an interrupted
// run of the same target as it is (inPlace), else a new one, an older part
// moved to OUT.hdig-zsync-seed first. The binding is saved at once, so a
// run killed at any point leaves a part its sidecar describes.
func (z *zsyncRun) openPart() (f *os.File, inPlace bool, err error) {
	out := z.o.Output
	part, side, seed := Beside(out, PartSuffix), Beside(out, zsyncSideSuffix), Beside(out, zsyncSeedSuffix)
	now := z.side()
	saved, ok := readZsyncSide(side)
	if fi, err := os.Lstat(part); err == nil && fi.Mode().IsRegular() { // a symbolic link there is not ours: CreatePart drops it
		// Written in place only when OpenPart would take it (one name):
		// a hard-linked part is only read, as a seed.
		inPlace = ok && saved.bound(now) && ownfile.Own(fi)
		if !inPlace {
			// A seed left by a run stopped while seeding holds what that
			// run's part was built from: it is kept, this part dropped.
			if _, err := os.Stat(seed); errors.Is(err, os.ErrNotExist) {
				err = os.Rename(part, seed)
				if err != nil {
					return nil, false, err
				}
			}
			os.Remove(Beside(out, SidecarSuffix)) // a plain download's, for the part moved
		}
	}
	if inPlace {
		f, err = OpenPart(part)
	} else {
		f, err = CreatePart(part, out)
	}
	if err != nil {
		return nil, false, err
	}
	if err := writeZsyncSide(side, now); err != nil {
		f.Close()
		return nil, false, err
	}
	return f, inPlace, nil
}

// seedPart takes the blocks the part already holds, then reads a part of
// another version as a seed; the caller removes OUT.hdig-zsync-seed once
// seeding is over.
func (z *zsyncRun) seedPart(m *zsync.Matcher, f *os.File, inPlace bool) error {
	if inPlace {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if err := m.SeedInPlace(f, fi.Size()); err != nil {
			return err
		}
	}
	if m.Complete() {
		return nil
	}
	// The part moved aside is a regular file (a hard-linked part is read
	// as a seed too; its blocks are checked as any seed's): a FIFO or link
	// someone put at that name is no seed, and not waited on (ownfile.OpenRegular).
	seed := Beside(z.o.Output, zsyncSeedSuffix)
	f, _, err := ownfile.OpenRegular(seed, os.O_RDONLY)
	if err != nil {
		return nil
	}
	z.fromPart = true
	return z.seedFile(m, f, seed)
}

// keeps reports whether the part of a run that failed with err is kept:
// when nothing proved its bytes wrong (keepPart) and it holds bytes the
// origin sent: blocks fetched by this run, or blocks of a part an earlier
// run left (taken in place, or read from OUT.hdig-zsync-seed, which is
// gone once read); and some block is still missing (a whole part that
// failed its checks has nothing left to fetch). A part only seeds filled
// is not: the origin never confirmed the version the control file
// describes (it may answer 404, 503, or a length of its own), and the
// seeds, still there, give those blocks again.
func (z *zsyncRun) keeps(err error, m *zsync.Matcher, inPlace bool) bool {
	return err != nil && keepPart(err) && (inPlace || z.fromPart || m.Fetched > 0) && !m.Complete()
}

// keepPart reports whether a failed run's part is kept for the next: only
// when nothing proved its bytes wrong (every block in it was checked
// against the control file before it was written). One rule, not a list
// of the errors that are kept, so that no new class of error is missed.
func keepPart(err error) bool {
	return !errors.Is(err, zsync.ErrMismatch) && !errors.Is(err, ErrMismatch)
}
