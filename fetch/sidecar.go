package fetch

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hdig/hdig/fileid"
	"github.com/hdig/hdig/httpfield"
	"github.com/hdig/hdig/internal/ownfile"
	"github.com/hdig/hdig/internal/smallfile"
	"github.com/hdig/hdig/verify"
)

// SidecarSuffix names the small JSON file beside FILE.hdig-part that lets
// -C resume it: FILE.hdig-resume.
const SidecarSuffix = ".hdig-resume"

// ZsyncSidecarSuffix names the sidecar of a part an interrupted zsync run
// left (hdig get --zsync): its blocks are scattered, with holes between
// them, so it is no prefix to resume from the end.
const ZsyncSidecarSuffix = ".hdig-zsync"

// sidecarVersion is the format version written and read. Version 2 added
// Host; a version 1 sidecar does not say which Host its part was fetched
// under. Version 3 added LastModified; a version 2 sidecar does not say
// whether its part's first answer had one, the validator a resume without
// a strong ETag sends and checks. An earlier version is not resumed (the
// part is fetched again in full, once).
const sidecarVersion = 3

// Bounds of a sidecar read back: it is small, and a corrupt or hostile one
// must not cost memory.
const maxSidecarSize = 1 << 20

// maxSidecarSpans and maxSidecarPieces bound the spans on disk and the
// piece digests a sidecar records and reads back (variables for tests).
var (
	maxSidecarSpans  = 1 << 14
	maxSidecarPieces = 1 << 10
)

// sidecar is what a part needs to be resumed without re-reading it or
// splicing two versions: the validator, the length, the bytes on disk, the
// hash of the prefix up to Hashed, and the Content-Digest that verified
// each complete piece beyond it.
type sidecar struct {
	Version int    `json:"version"`
	URL     string `json:"url"` // its password redacted: the file is not secret
	// Host is the Host the requests were sent with when -H 'Host: NAME'
	// named one (lower case; "" none: the URL's). Another virtual host at
	// the URL's address serves another site's file, maybe under the same
	// ETag (nginx's mtime-size), so a part is resumed under its own only.
	Host       string `json:"host,omitempty"`
	ETag       string `json:"etag,omitempty"`
	Total      int64  `json:"total"` // -1 unknown
	ReprDigest string `json:"repr_digest,omitempty"`
	// ContentDigest is the Content-Digest of the first 200: the digest of
	// the whole representation's bytes, which the part holds once complete
	// (download.wholeContent).
	ContentDigest string         `json:"content_digest,omitempty"`
	Algorithms    []string       `json:"algorithms"`
	Hashed        int64          `json:"hashed"`
	HashState     []byte         `json:"hash_state"`
	Done          [][2]int64     `json:"done"` // [start, end) on disk
	Pieces        []sidecarPiece `json:"pieces,omitempty"`
	// Part is the part file's identity when the sidecar was saved: size,
	// mtime and what a user cannot set back (ctime, device, inode). Unless
	// the part is still that version (fileid.Same), the saved hash state
	// proves nothing and the part is hashed again. Sidecars of the earlier
	// format (part_size, part_mtime only) read as a zero, weak ID.
	Part fileid.ID `json:"part"`
	// Mirrored says mirrors were asked for pieces: the part may hold a
	// mirror's bytes, which only a proof of the whole may release
	// (download.mirrored).
	Mirrored bool `json:"mirrored,omitempty"`
	// Coding is the content coding of the responses the part's bytes
	// came from ("identity" for none; "" in older sidecars: unknown). A
	// strong ETag should name one coding, but the resume answer is held
	// to it as to the ETag (resumeTransfer): bytes of two codings spliced
	// are neither representation.
	Coding string `json:"coding,omitempty"`
	// LastModified is the first answer's Last-Modified (an IMF-fixdate),
	// and LastModifiedIfRange says it may be sent as If-Range (modified):
	// without a strong ETag they are what tells the part's version from
	// another of the same length (versionDiffers).
	LastModified        string `json:"last_modified,omitempty"`
	LastModifiedIfRange bool   `json:"last_modified_if_range,omitempty"`
	// WeakETag is the first answer's weak entity tag: never sent as
	// If-Range, but another one, or none, on a resume 206 is another
	// version (modifiedDiffers).
	WeakETag string `json:"weak_etag,omitempty"`
}

// sidecarPiece is a complete piece and the Content-Digest it matched.
type sidecarPiece struct {
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Digest string `json:"digest"`
}

// saveSidecar writes the sidecar for the current state: atomically (a
// temporary file renamed over it), describing only bytes already written.
func (d *download) saveSidecar() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ph == nil || d.f == nil || d.spool {
		return nil
	}
	mirrored := d.mirrored || d.mirrorSources() > 1
	var done spans
	wm, state, err := d.ph.snapshot(func() {
		done = append(spans{}, d.before...)
		for _, p := range d.pieces {
			done.add(p.start, p.at())
		}
	})
	if err != nil {
		return err
	}
	sc := sidecar{Version: sidecarVersion, URL: httpfield.Redact(d.req.URL), Host: sentHost(d.req), ETag: d.etag, Total: d.total,
		Hashed: wm, HashState: state, Mirrored: mirrored, LastModified: d.modified.date, LastModifiedIfRange: d.modified.ifRange,
		WeakETag: d.modified.weak}
	sc.ReprDigest = d.savedRepr            // "" unless resumed
	if d.status >= 200 && d.status < 300 { // not an error's (answered)
		raw := strings.Join(d.header.Values(verify.ReprDigest), ", ")
		if !d.ref.repr.Present && d.late.Usable() { // lateRef's, under d.mu held here
			raw = d.lateRaw
		}
		sc.ReprDigest = mergeRepr(sc.ReprDigest, raw)
		for _, f := range d.lateMore {
			// The pieces' members of other algorithms (noteLate): of a
			// valid field only, as a salvaged one's prove nothing.
			if f.Name == verify.ReprDigest && !f.Salvaged {
				sc.ReprDigest = mergeRepr(sc.ReprDigest, formatMembers(slices.Concat(f.Digests, f.Shadowed)))
			}
		}
	}
	sc.Coding = d.savedCoding
	if d.status >= 200 && d.status < 300 {
		sc.Coding = orIdentity(codingOf(d.header))
	}
	sc.ContentDigest = d.wholeContent
	for _, a := range d.algs {
		sc.Algorithms = append(sc.Algorithms, a.Key)
	}
	for s, dg := range d.digests {
		if s.end > wm && done.reach(s.start) >= s.end {
			sc.Pieces = append(sc.Pieces, sidecarPiece{Start: s.start, End: s.end, Digest: dg})
		}
	}
	done = sc.bound(done, wm)
	if err := d.syncVouched(done); err != nil {
		return err
	}
	if sc.Part, err = fileid.File(d.f); err != nil {
		return err
	}
	b, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	return ReplaceFile(d.side, b)
}

// bound records done in sc within what a sidecar reads back (check),
// and returns what it records. The bytes of the pieces beyond
// maxSidecarPieces would lose the digest that verified them, and be kept
// unchecked: they are not listed as on disk, and -C fetches them again;
// the prefix hash and the pieces nearest it stay. Spans beyond
// maxSidecarSpans (holes parallel pieces left, cut further by the pieces
// dropped) are not listed either, nor the pieces whose bytes they held:
// a sidecar listing more would be refused, and the whole part with it.
func (sc *sidecar) bound(done spans, wm int64) spans {
	slices.SortFunc(sc.Pieces, func(a, b sidecarPiece) int { return cmp.Compare(a.Start, b.Start) })
	if len(sc.Pieces) > maxSidecarPieces {
		for _, p := range sc.Pieces[maxSidecarPieces:] {
			done.cut(max(p.Start, wm), p.End)
		}
		sc.Pieces = sc.Pieces[:maxSidecarPieces]
	}
	if len(done) > maxSidecarSpans {
		done = done[:maxSidecarSpans] // the first holds the hashed prefix
		sc.Pieces = slices.DeleteFunc(sc.Pieces, func(p sidecarPiece) bool { return done.reach(p.Start) < p.End })
	}
	sc.Done = nil
	for _, s := range done {
		sc.Done = append(sc.Done, [2]int64{s.start, s.end})
	}
	return done
}

// syncVouched syncs the part to disk before a sidecar listing done as on
// it is saved, unless this run's last sidecar listed the same after a sync
// (d.vouched): after a power loss a sidecar must not vouch for bytes that
// never reached the disk, which read back as zeros (or the old blocks)
// would be resumed as the file's, and released unverified when the origin
// sends no digest. A run's first save syncs: the part's earlier bytes may
// be vouched for by no sidecar yet (a part resumed without one), and so
// does the first after bytes were written again inside the spans
// (unvouch). Called under d.mu.
func (d *download) syncVouched(done spans) error {
	if d.vouched != nil && slices.Equal(done, d.vouched) {
		return nil
	}
	if err := syncPart(d.f); err != nil {
		return err
	}
	d.vouched = done
	return nil
}

// syncPart syncs a part before a sidecar vouches for it (a variable for
// tests, which count the syncs).
var syncPart = (*os.File).Sync

// mergeRepr is the Repr-Digest to record: saved, the field a sidecar
// recorded (what the part's version's earlier answers carried, the
// first's included), with the members of raw, this run's reference field,
// it lacks. The first answer's members are never replaced by a later
// one's: a value differing from one recorded is a repeated key whose
// earlier value Compare still checks (Shadowed), a mismatch shown, not
// hidden. What is recorded is always read back as it was meant, within
// the 16 KiB over which a field is ignored whole (the first answer's
// proof with it), however many runs add to it:
//
//   - A field that is not a valid Dictionary (Salvaged: its members can
//     only fail) is recorded as it came, and only when nothing usable was:
//     joined to a valid one it would make both a salvage whose matches
//     prove nothing; added to, it would grow.
//   - Of a valid field, only members of algorithms hdig computes are
//     kept (a member of another proves nothing, and one new each run grew
//     the field until it was ignored), at most two values an algorithm
//     (two differing values already fail the whole, a third adds nothing),
//     a value longer than its algorithm's digest clipped to one byte more
//     (it fails as it did).
//   - A field ignored (malformed, over the limit) records nothing.
func mergeRepr(saved, raw string) string {
	have := verify.ParseDigestField(verify.ReprDigest, []string{saved})
	f := verify.ParseDigestField(verify.ReprDigest, []string{raw})
	switch {
	case have.Salvaged:
		return saved
	case !have.Usable() && f.Salvaged:
		return raw
	case f.Salvaged || !f.Usable():
		f = verify.DigestField{}
	}
	var out []verify.Digest
	for _, x := range slices.Concat(have.Digests, have.Shadowed, f.Shadowed, f.Digests) {
		a, ok := verify.Find(x.Algorithm)
		if !ok {
			continue
		}
		if len(x.Value) > a.Size+1 {
			x.Value = x.Value[:a.Size+1]
		}
		kept := 0
		for _, y := range out {
			if y.Algorithm == x.Algorithm && bytes.Equal(y.Value, x.Value) {
				kept = 2 // recorded already
			} else if y.Algorithm == x.Algorithm {
				kept++
			}
		}
		if kept < 2 {
			out = append(out, x)
		}
	}
	return formatMembers(out)
}

// formatMembers is a Repr-Digest of ds in order, a repeated algorithm
// repeated (FormatDigests keeps one value a key).
func formatMembers(ds []verify.Digest) string {
	out := make([]string, len(ds))
	for i, x := range ds {
		out[i] = verify.FormatDigests([]verify.Digest{x})
	}
	return strings.Join(out, ", ")
}

// loadSidecar reads the sidecar of a part of partSize bytes fetched from
// url under the Host host (sentHost). It returns nil and why when there is
// none or it cannot be trusted.
func loadSidecar(path, url, host string, partSize int64) (*sidecar, string) {
	b, err := ownfile.Read(path, maxSidecarSize)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, ""
	case errors.Is(err, smallfile.ErrTooLarge):
		return nil, fmt.Sprintf("over %d bytes", maxSidecarSize)
	case err != nil:
		return nil, err.Error()
	}
	var sc sidecar
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, "not JSON: " + err.Error()
	}
	if why := sc.check(url, host, partSize); why != "" {
		return nil, why
	}
	return &sc, ""
}

// check validates a sidecar against the URL, the Host and the part on disk.
func (sc *sidecar) check(url, host string, partSize int64) string {
	switch {
	case sc.Version != sidecarVersion:
		return fmt.Sprintf("version %d, want %d", sc.Version, sidecarVersion)
	case sc.URL != httpfield.Redact(url):
		return fmt.Sprintf("it is for %q", httpfield.Clip(sc.URL))
	case sc.Host != host:
		return fmt.Sprintf("it is for Host %q", httpfield.Clip(sc.Host))
	case sc.ETag != "" && ifRangeETag(sc.ETag) != sc.ETag:
		// It is sent as If-Range: a strong ETag, as saved (download.etag).
		return fmt.Sprintf("ETag %q is not a strong entity tag", httpfield.Clip(sc.ETag))
	case sc.LastModified != "" && httpDate(sc.LastModified) != sc.LastModified:
		return fmt.Sprintf("Last-Modified %q is not an IMF-fixdate", httpfield.Clip(sc.LastModified))
	case sc.LastModifiedIfRange && sc.LastModified == "":
		return "If-Range by a Last-Modified it does not record"
	case sc.WeakETag != "" && weakETag(sc.WeakETag) != sc.WeakETag:
		return fmt.Sprintf("weak ETag %q is not one weak entity tag", httpfield.Clip(sc.WeakETag))
	case sc.LastModifiedIfRange && sc.WeakETag != "":
		// §13.1.5: no date If-Range where an entity tag is known (modifiedOf).
		return "If-Range by a Last-Modified beside an entity tag"
	case sc.Total < -1:
		return fmt.Sprintf("length %d", sc.Total)
	case sc.Total >= 0 && partSize > sc.Total:
		// Bytes beyond the length would be renamed onto FILE unhashed.
		return fmt.Sprintf("the part's %d bytes exceed the length %d", partSize, sc.Total)
	case len(sc.Done) > maxSidecarSpans || len(sc.Pieces) > maxSidecarPieces:
		return "too many spans"
	case len(sc.Algorithms) > len(verify.All): // none: nothing was hashed (no digest to check)
		return fmt.Sprintf("%d algorithms", len(sc.Algorithms))
	}
	for _, k := range sc.Algorithms {
		if _, ok := verify.Find(k); !ok {
			return fmt.Sprintf("unknown algorithm %q", httpfield.Clip(k))
		}
	}
	at := int64(0)
	for _, s := range sc.Done {
		if s[0] < at || s[1] <= s[0] || s[1] > partSize || (sc.Total >= 0 && s[1] > sc.Total) {
			return fmt.Sprintf("span %d-%d out of order or beyond the part's %d bytes", s[0], s[1], partSize)
		}
		at = s[1]
	}
	// The pieces are saved in any order but never overlap: each is read
	// back once (checkKept), so a hostile list cannot make hdig read the
	// part a thousand times.
	ps := slices.SortedFunc(slices.Values(sc.Pieces), func(a, b sidecarPiece) int { return cmp.Compare(a.Start, b.Start) })
	at = 0
	for _, p := range ps {
		if p.Start < 0 || p.End <= p.Start || p.End > partSize {
			return fmt.Sprintf("piece %d-%d out of order or beyond the part's %d bytes", p.Start, p.End, partSize)
		}
		if p.Start < at {
			return fmt.Sprintf("pieces overlap at byte %d", p.Start)
		}
		at = p.End
	}
	if sc.Hashed < 0 || (sc.Hashed > 0 && sc.Hashed > sc.done().reach(0)) {
		return fmt.Sprintf("hashed %d bytes, more than the part holds", sc.Hashed)
	}
	return ""
}

// sentHost is the Host req's requests to its origin are sent with when
// -H 'Host: NAME' names one (request.go), in lower case; "" when none.
func sentHost(req *Request) string {
	return strings.ToLower(strings.TrimSpace(req.Header.Get("Host")))
}

// unchanged reports whether the part is the version the sidecar saw: the
// same strong identity. A weak one (no ctime or inode here, or an old
// sidecar) never is, so the part is hashed again.
func (sc *sidecar) unchanged(st os.FileInfo) bool {
	return fileid.Same(fileid.Of(st), sc.Part)
}

// modified is the Last-Modified and weak ETag the sidecar recorded.
func (sc *sidecar) modified() modified {
	return modified{date: sc.LastModified, ifRange: sc.LastModifiedIfRange, weak: sc.WeakETag}
}

// done is the sidecar's spans on disk.
func (sc *sidecar) done() spans {
	var s spans
	for _, x := range sc.Done {
		s.add(x[0], x[1])
	}
	return s
}

// algorithms are the sidecar's hash algorithms (checked to exist).
func (sc *sidecar) algorithms() []verify.Algorithm {
	var out []verify.Algorithm
	for _, k := range sc.Algorithms {
		a, _ := verify.Find(k)
		out = append(out, a)
	}
	return out
}
