package fetch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// A Sink receives a body while it is verified. Commit releases the bytes
// once the verdict allows it; Abort discards them. Exactly one of them is
// called, once.
type Sink interface {
	io.Writer
	// Reset discards what was written so far, for a retry from the start.
	Reset() error
	Commit() error
	Abort() error
}

// A holdingSink is a Sink that releases nothing before Commit (a part file, a
// held spool): what was written to it can still be taken back by Reset.
// Bytes not checked yet may go into one; into any other sink only
// bytes already checked.
type holdingSink interface{ holdsBack() }

func (*FileSink) holdsBack()   {}
func (*HeldSink) holdsBack()   {}
func (DiscardSink) holdsBack() {}

// PartSuffix names the file a download is written to before it is verified.
const PartSuffix = ".hdig-part"

// ownMark is in the name of every file hdig keeps beside an output: the
// part (PartSuffix), its sidecars (SidecarSuffix, ZsyncSidecarSuffix,
// zsyncSeedSuffix), their .tmp (ReplaceFile), -J's hidden file.
const ownMark = ".hdig-"

// OwnName says name is one hdig gives its own files beside an output
// (ownMark, in any case: a case-insensitive file system folds it): a name
// an origin suggests (-J) must not be one, or it would plant a part, or a
// sidecar vouching for one, for a later -C to trust.
func OwnName(name string) bool {
	return strings.Contains(strings.ToLower(name), ownMark)
}

// NameMax is the longest file name, in bytes, that file systems take
// (NAME_MAX).
const NameMax = 255

// Beside is the name of hdig's own file with suffix (PartSuffix,
// SidecarSuffix, …) beside path: path+suffix, with path's name cut short
// (FitName) when that name and ReplaceFile's ".tmp" would not fit in
// NameMax. The same path gives the same name (-C finds its part again),
// and two outputs never share one. The one rule for every file hdig
// keeps beside an output.
func Beside(path, suffix string) string {
	dir, base := filepath.Split(path)
	return dir + FitName(base, NameMax-len(suffix)-len(".tmp")) + suffix
}

// FitName is name when it has at most room bytes, else its start (cut at
// a rune) followed by "~" and a hash of the whole name, room bytes in
// all: a name of hdig's made from an output's fits beside it. A name that
// fits but has that form itself is cut and hashed too, so two names never
// give one: two outputs never share a part.
func FitName(name string, room int) string {
	if len(name) <= room && !fitted(name) {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tag := "~" + hex.EncodeToString(sum[:fitHash])
	keep := min(max(room-len(tag), 0), len(name))
	for keep > 0 && keep < len(name) && !utf8.RuneStart(name[keep]) {
		keep--
	}
	return name[:keep] + tag
}

// fitHash is how many bytes of the sha-256 FitName's tag holds: 128 bits,
// so no two names an origin or a user picks are made to share one.
const fitHash = 16

// fitted says name ends as FitName's cut names do: "~" and the hex of
// fitHash bytes.
func fitted(name string) bool {
	n := 1 + 2*fitHash
	if len(name) < n || name[len(name)-n] != '~' {
		return false
	}
	_, err := hex.DecodeString(name[len(name)-n+1:])
	return err == nil
}

// FileSink writes to PATH.hdig-part and renames it onto PATH on Commit, so
// PATH is never replaced or truncated by unverified bytes.
type FileSink struct {
	Path      string
	f         *os.File
	unchanged bool
	scratch   bool // Path is a name of hdig's, renamed by the caller (linked never)
}

// NewFileSink creates PATH.hdig-part afresh (CreatePart). A symbolic link
// PATH is followed: the part goes beside its target and is renamed onto it.
func NewFileSink(path string) (*FileSink, error) {
	path, err := fileOutput(path)
	if err != nil {
		return nil, err
	}
	f, err := CreatePart(Beside(path, PartSuffix), path)
	if err != nil {
		return nil, err
	}
	return &FileSink{Path: path, f: f}, nil
}

// NewScratchSink is NewFileSink for scratch, a name of hdig's own (-J's
// hidden file, ClearScratch): it is used as itself, resolved no more, so
// a symbolic link put there after it was cleared is not followed, and the
// part made as a new file (CreateScratchPart) is renamed onto that name,
// replacing whatever is there.
func NewScratchSink(scratch string) (*FileSink, error) {
	f, err := CreateScratchPart(Beside(scratch, PartSuffix))
	if err != nil {
		return nil, err
	}
	return &FileSink{Path: scratch, f: f, scratch: true}, nil
}

// newSink is NewScratchSink for a scratch name, else NewFileSink.
func newSink(path string, scratch bool) (*FileSink, error) {
	if scratch {
		return NewScratchSink(path)
	}
	return NewFileSink(path)
}

func (s *FileSink) Write(p []byte) (int, error) { return s.f.Write(p) }

// Reset truncates the part file.
func (s *FileSink) Reset() error {
	if err := s.f.Truncate(0); err != nil {
		return err
	}
	_, err := s.f.Seek(0, io.SeekStart)
	return err
}

// Commit flushes the part file and renames it onto the target.
func (s *FileSink) Commit() error {
	if s.unchanged {
		return s.Abort()
	}
	err := s.f.Sync()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(s.f.Name(), s.Path)
	}
	if err != nil {
		os.Remove(s.f.Name())
	}
	return err
}

// Abort closes and deletes the part file.
func (s *FileSink) Abort() error {
	s.f.Close()
	return os.Remove(s.f.Name())
}

// Unchanged makes Commit leave Path as it is and drop the part file: the
// verified bytes are already there (a 304 for the file the cache links).
func (s *FileSink) Unchanged() { s.unchanged = true }

// StreamSink passes bytes straight through (-N): nothing can be held back,
// so a failed verdict can only be reported.
type StreamSink struct {
	Out     io.Writer
	written bool
}

func (s *StreamSink) Write(p []byte) (int, error) {
	if len(p) > 0 {
		s.written = true
	}
	return s.Out.Write(p)
}

// Reset fails once bytes have been released.
func (s *StreamSink) Reset() error {
	if s.written {
		return errors.New("cannot restart: bytes were already streamed (-N)")
	}
	return nil
}

// Commit does nothing: the bytes are out.
func (s *StreamSink) Commit() error { return nil }

// Abort does nothing: the bytes are out.
func (s *StreamSink) Abort() error { return nil }

// DiscardSink drops the body (HEAD, checks).
type DiscardSink struct{}

func (DiscardSink) Write(p []byte) (int, error) { return len(p), nil }
func (DiscardSink) Reset() error                { return nil }
func (DiscardSink) Commit() error               { return nil }
func (DiscardSink) Abort() error                { return nil }
