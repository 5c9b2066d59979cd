package zsync

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// memFile is an in-memory io.WriterAt and io.ReaderAt, safe for the
// concurrent writes of parallel seed scans.
type memFile struct {
	mu sync.Mutex
	b  []byte
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if need := int(off) + len(p); need > len(f.b) {
		f.b = append(f.b, make([]byte, need-len(f.b))...)
	}
	return copy(f.b[off:], p), nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.NewReader(f.b).ReadAt(p, off)
}

// syncResult is what rebuilding a target from seeds cost.
type syncResult struct {
	fetched int64 // bytes taken from the target (the origin)
	ranges  int   // ranges asked for
	m       *Matcher
}

// rebuild rebuilds target from seeds the way a client would: match the
// seeds, fetch the missing ranges from target, check the result.
func rebuild(t *testing.T, target []byte, bs int, seeds ...[]byte) syncResult {
	t.Helper()
	c, err := Read(bytes.NewReader(encode(t, makeControl(t, target, bs))))
	if err != nil {
		t.Fatal(err)
	}
	out := &memFile{}
	m := NewMatcher(c, out)
	for _, s := range seeds {
		if err := m.Seed(bytes.NewReader(s)); err != nil {
			t.Fatal(err)
		}
	}
	missing := m.Missing()
	var want int64
	for _, r := range missing {
		want += r.Len()
		if _, err := m.WriteFetched(r.Start, bytes.NewReader(target[r.Start:r.End])); err != nil {
			t.Fatal(err)
		}
	}
	if want != m.Fetched || m.FromSeed+m.Fetched != int64(len(target)) || m.MissingBytes() != 0 {
		t.Fatalf("missing ranges hold %d bytes, fetched %d, from seeds %d, target %d", want, m.Fetched, m.FromSeed, len(target))
	}
	if err := m.Finish(out); err != nil {
		t.Fatal(err)
	}
	if m.Starved != 0 {
		t.Errorf("%d windows not looked up for lack of hashing budget", m.Starved)
	}
	if !bytes.Equal(out.b[:len(target)], target) {
		t.Fatal("rebuilt file differs from the target")
	}
	return syncResult{fetched: m.Fetched, ranges: len(missing), m: m}
}

func splice(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestMatchSeedEqualsTarget(t *testing.T) {
	for _, n := range []int{0, 1, 2047, 2048, 2049, 100_000, 1 << 20} {
		data := randomBytes(uint64(n), n)
		r := rebuild(t, data, 2048, data)
		if r.fetched != 0 {
			t.Errorf("length %d: fetched %d bytes, want 0", n, r.fetched)
		}
		if blocks := int64(r.m.c.Blocks()); r.m.Tested > 2*blocks {
			t.Errorf("length %d: %d MD4 computations for %d blocks, want at most %d", n, r.m.Tested, blocks, 2*blocks)
		}
	}
}

// TestMatchHashesAhead: where the seed holds the target's blocks in
// order, the scan hashes the window's block with the next ones at once
// (md4Eight, or md4Two without eight lanes) and the next windows use those
// MD4s: about one MD4 per block, nearly all computed together, the few
// more hashed ahead past an edit bounded by 8 per edit.
func TestMatchHashesAhead(t *testing.T) {
	target := randomBytes(31, 1<<20)
	edited := append([]byte(nil), target...)
	for k := range 8 {
		copy(edited[k*(1<<17)+5000:], randomBytes(uint64(40+k), 700))
	}
	for _, c := range []struct {
		name  string
		seed  []byte
		edits int64
	}{{"same", target, 0}, {"8 edits", edited, 8}} {
		for _, bs := range []int{2048, 4096} {
			r := rebuild(t, target, bs, c.seed)
			blocks, slack := int64(r.m.c.Blocks()), 8*c.edits+8
			if m := r.m; m.Tested > blocks+slack || m.Paired < m.Tested-slack {
				t.Errorf("%s, blocks of %d: %d MD4s, %d of them together, for %d blocks; want at most %d, all but %d together", c.name, bs, m.Tested, m.Paired, blocks, blocks+slack, slack)
			}
		}
	}
}

// TestMatchSkipsUnknownRsums: in a seed that shares nothing with the
// target, most windows' rsums belong to no block; the scan rolls past
// them without looking them up, so windows looked up stay a small part of
// the seed's offsets.
func TestMatchSkipsUnknownRsums(t *testing.T) {
	target, seed := randomBytes(51, 1<<20), randomBytes(52, 1<<20)
	r := rebuild(t, target, 2048, seed)
	if limit := int64(len(seed) / 8); r.m.Tried > limit {
		t.Errorf("%d windows looked up in a seed of %d bytes sharing nothing with the target, want at most %d", r.m.Tried, len(seed), limit)
	}
}

func TestMatchEmptySeed(t *testing.T) {
	data := randomBytes(2, 100_000)
	if r := rebuild(t, data, 2048, nil); r.fetched != int64(len(data)) || r.ranges != 1 {
		t.Errorf("empty seed: fetched %d bytes in %d ranges, want %d in 1", r.fetched, r.ranges, len(data))
	}
}

// TestMatchScatteredEdits: 64 one-byte edits, each in its own block and at
// least three blocks apart, cost exactly 64 blocks.
func TestMatchScatteredEdits(t *testing.T) {
	const bs = 2048
	seed := randomBytes(3, 1<<20) // 512 blocks
	target := bytes.Clone(seed)
	for k := 0; k < 64; k++ {
		target[k*8*bs+(k*97)%bs] ^= 0xff
	}
	r := rebuild(t, target, bs, seed)
	if r.fetched != 64*bs || r.ranges != 64 {
		t.Errorf("fetched %d bytes in %d ranges, want %d in 64", r.fetched, r.ranges, 64*bs)
	}
}

// TestMatchInsertDeleteNearStart: bytes inserted or deleted near the start
// shift every later block; the rolling checksum finds them all the same.
func TestMatchInsertDeleteNearStart(t *testing.T) {
	const bs = 2048
	seed := randomBytes(4, 300_001)
	cases := []struct {
		name   string
		target []byte
		want   int64 // bytes to fetch: the blocks the change touches
	}{
		{"insert 37 at 100", splice(seed[:100], randomBytes(5, 37), seed[100:]), bs},
		{"delete 1000 at 10", splice(seed[:10], seed[1010:]), bs},
		{"insert 1 at 0", splice([]byte{7}, seed), bs},
		{"delete the first byte", seed[1:], 0},
		{"insert 5000 at 150000", splice(seed[:150_000], randomBytes(6, 5000), seed[150_000:]), 3 * bs},
		{"append 3 bytes", splice(seed, []byte("end")), int64(len(seed)+3) % bs},
		{"delete the first 4107 bytes", seed[4096+11:], 0},
		{"change the last byte", splice(seed[:len(seed)-1], []byte{^seed[len(seed)-1]}), int64(len(seed)) % bs},
	}
	for _, c := range cases {
		r := rebuild(t, c.target, bs, seed)
		if r.fetched != c.want {
			t.Errorf("%s: fetched %d bytes in %d ranges, want %d", c.name, r.fetched, r.ranges, c.want)
		}
	}
}

// TestMatchSmallReads: a seed read a few bytes at a time is matched the same.
func TestMatchSmallReads(t *testing.T) {
	data := randomBytes(11, 50_000)
	c := makeControl(t, data, 512)
	m := NewMatcher(c, &memFile{})
	if err := m.Seed(iotest.HalfReader(iotest.OneByteReader(bytes.NewReader(splice([]byte("ab"), data))))); err != nil {
		t.Fatal(err)
	}
	if !m.Complete() || m.FromSeed != int64(len(data)) {
		t.Errorf("from a seed read byte by byte: %d bytes found, want %d", m.FromSeed, len(data))
	}
}

// TestMatchSeveralSeeds: blocks come from whichever seed holds them.
func TestMatchSeveralSeeds(t *testing.T) {
	data := randomBytes(7, 200_000)
	r := rebuild(t, data, 1024, data[:90_000], data[100_000:])
	if r.fetched > 3*1024+10_000 {
		t.Errorf("fetched %d bytes, want at most %d", r.fetched, 3*1024+10_000)
	}
}

// TestMatchRepeatedBlocks: a target made of one block repeated is rebuilt
// from a seed holding that block once.
func TestMatchRepeatedBlocks(t *testing.T) {
	block := randomBytes(8, 512)
	target := bytes.Repeat(block, 40)
	if r := rebuild(t, target, 512, splice([]byte("xyz"), block, block)); r.fetched != 0 {
		t.Errorf("fetched %d bytes, want 0", r.fetched)
	}
}

func TestWriteFetchedRefusesWrongBytes(t *testing.T) {
	data := randomBytes(9, 10_000)
	c := makeControl(t, data, 2048)
	m := NewMatcher(c, &memFile{})
	bad := bytes.Clone(data[2048:4096])
	bad[5] ^= 1
	_, err := m.WriteFetched(2048, bytes.NewReader(bad))
	if err == nil || !strings.Contains(err.Error(), "block 1 (bytes 2048-4095) does not match") {
		t.Errorf("WriteFetched of a wrong block: error = %v, want one naming block 1", err)
	}
	if _, err := m.WriteFetched(100, bytes.NewReader(data[100:200])); err == nil || !strings.Contains(err.Error(), "block boundary") {
		t.Errorf("WriteFetched at an unaligned offset: error = %v, want one naming the block boundary", err)
	}
	if _, err := m.WriteFetched(8192, bytes.NewReader(append(bytes.Clone(data[8192:]), 0))); err == nil || !strings.Contains(err.Error(), "run past") {
		t.Errorf("WriteFetched past the end: error = %v, want one saying it runs past", err)
	}
	if err := m.Finish(&memFile{}); err == nil || !strings.Contains(err.Error(), "still missing") {
		t.Errorf("Finish with blocks missing: error = %v, want one saying so", err)
	}
}

func TestVerifyMismatch(t *testing.T) {
	data := randomBytes(10, 5000)
	c := makeControl(t, data, 2048)
	bad := bytes.Clone(data)
	bad[0] ^= 1
	if err := c.Verify(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "SHA-1 mismatch") {
		t.Errorf("Verify of a changed file: error = %v, want a SHA-1 mismatch", err)
	}
	if err := c.Verify(bytes.NewReader(data[:4999])); err == nil || !strings.Contains(err.Error(), "has 4999 bytes, want 5000") {
		t.Errorf("Verify of a short file: error = %v, want a length mismatch", err)
	}
}

func TestCoalesce(t *testing.T) {
	in := []Range{{0, 10}, {15, 20}, {100, 110}, {111, 120}}
	got := Coalesce(in, 5)
	want := []Range{{0, 20}, {100, 120}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Coalesce(%v, 5) = %v, want %v", in, got, want)
	}
}

// TestFetchWriterPieces: bytes written in uneven pieces, as a response body
// arrives, are checked per block; a short last piece is reported by Close.
func TestFetchWriterPieces(t *testing.T) {
	data := randomBytes(12, 10_000)
	c := makeControl(t, data, 1024)
	out := &memFile{}
	m := NewMatcher(c, out)
	fw, err := m.FetchWriter(0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(data); i += 333 {
		if _, err := fw.Write(data[i:min(i+333, len(data))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(out); err != nil {
		t.Fatal(err)
	}
	fw, _ = NewMatcher(c, &memFile{}).FetchWriter(1024)
	fw.Write(data[1024:1500])
	if err := fw.Close(); err == nil || !strings.Contains(err.Error(), "block 1: want 1024 bytes, got 476") {
		t.Errorf("Close after half a block: error = %v, want one naming block 1", err)
	}
}

// TestMatchRepetitiveWork: a target of one 16-byte block repeated 4096
// times, then one block found nowhere, puts 4096 blocks under one rsum.
// Once found they are skipped, so the work stays linear in the seed:
// candidates looked at and MD4s <= blocks + seed length.
func TestMatchRepetitiveWork(t *testing.T) {
	target := append(make([]byte, 64<<10), randomBytes(13, 16)...)
	for _, seed := range [][]byte{make([]byte, 64<<10), append([]byte("x"), make([]byte, 20_000)...)} {
		c := makeControl(t, target, 16)
		m := NewMatcher(c, &memFile{})
		if err := m.Seed(bytes.NewReader(seed)); err != nil {
			t.Fatal(err)
		}
		if m.FromSeed != 64<<10 {
			t.Fatalf("seed of %d bytes: %d bytes found, want %d", len(seed), m.FromSeed, 64<<10)
		}
		if limit := int64(c.Blocks() + len(seed)); m.Probed > limit || m.Tested > limit {
			t.Errorf("seed of %d bytes: %d candidates looked at, %d MD4s, want at most %d", len(seed), m.Probed, m.Tested, limit)
		}
	}
}

// TestRsumFormula: rsum equals its definition (a = Σx, b = Σ(n-i)·x mod
// 2^16) at every length around the unrolled step, for mixed bytes and for
// bytes all 0xff (the largest sums of its lanes).
func TestRsumFormula(t *testing.T) {
	p := make([]byte, 5000)
	for i := range p {
		p[i] = byte(i*131 + i/7)
	}
	testRsumFormula(t, p)
	testRsumFormula(t, bytes.Repeat([]byte{0xff}, 5000))
}

func testRsumFormula(t *testing.T, p []byte) {
	t.Helper()
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 2048, 4096, 5000} {
		var a, b uint16
		for i, x := range p[:n] {
			a += uint16(x)
			b += uint16(n-i) * uint16(x)
		}
		if ga, gb := rsum(p[:n]); ga != a || gb != b {
			t.Errorf("rsum of %d bytes = %d,%d; want %d,%d", n, ga, gb, a, b)
		}
	}
}

// TestMatchCollidingRsums: a control file may give every block the same
// rsum, with MD4s no window has (or, with pairs, make every other block
// match a window whose next block never does). Each seed window with that
// rsum then looked at every such block: work of the seed's length times
// the block count (here 4096 blocks, a table of tens of KiB, and a 64 KiB
// seed: up to 2^28 candidates) from a small control file. The candidates
// looked at must stay within the blocks plus the seed, as for honest files
// (TestMatchRepetitiveWork). (A window whose rsum collides is still hashed:
// at most a block's MD4 a window.)
func TestMatchCollidingRsums(t *testing.T) {
	const bs, blocks = 16, 4096
	for _, tt := range []struct {
		name string
		seq  int
		odd  bool // only odd blocks are made to differ: pairs of an even block never match
	}{{"one rsum", 1, false}, {"one rsum, pairs", 2, false}, {"every other block, pairs", 2, true}} {
		c := makeControl(t, make([]byte, bs*blocks), bs)
		c.SeqMatches = tt.seq
		for i := range blocks {
			if tt.odd && i%2 == 0 {
				continue
			}
			if tt.odd {
				c.Rsums[i] ^= 1
			}
			copy(c.checksum(i), randomBytes(uint64(i)+1, c.ChecksumBytes))
		}
		seed := make([]byte, 64<<10)
		m := NewMatcher(c, &memFile{})
		if err := m.Seed(bytes.NewReader(seed)); err != nil {
			t.Fatal(err)
		}
		if limit := int64(c.Blocks() + len(seed)); m.Probed > limit {
			t.Errorf("%s: %d candidates looked at, want at most %d", tt.name, m.Probed, limit)
		}
	}
}

// hostileControl returns a control file of blocks of bs bytes whose rsums
// are those of the seed's windows (zero-padded past its end; with pairs,
// a block's next block has the rsum of the window a block further on) and
// whose MD4s no window has: every window of the seed collides, none
// matches. For a seed of zeros, every block has the zero block's rsum.
func hostileControl(seed []byte, bs, seq int) *Control {
	padded := append(append([]byte(nil), seed...), make([]byte, 2*bs)...)
	var rsums []uint32
	for p := range seed {
		for k := range seq {
			rsums = append(rsums, join(rsum(padded[p+k*bs:p+(k+1)*bs])))
		}
	}
	n := len(rsums)
	return &Control{Blocksize: bs, Length: int64(n) * int64(bs), SeqMatches: seq, RsumBytes: 4, ChecksumBytes: md4Size, Rsums: rsums, Checksums: randomBytes(7, n*md4Size)}
}

// TestMatchHashingBudget: a control file whose blocks collide in rsum
// with every window of a seed (a zero-filled seed needs one rsum for all)
// made each seed byte cost a block's MD4 (eight with pairs, hashed
// ahead): seed length × block size, 2^54 bytes for a 1 GiB seed of zeros
// and 16 MiB blocks. The bytes hashed stay within a budget per seed byte.
func TestMatchHashingBudget(t *testing.T) {
	const bs = 1024
	for _, tt := range []struct {
		name string
		seed []byte
	}{{"zeros", make([]byte, 32<<10)}, {"known seed", randomBytes(3, 16<<10)}} {
		for seq := 1; seq <= 2; seq++ {
			c := hostileControl(tt.seed, bs, seq)
			if tt.name == "zeros" {
				c = hostileControl(tt.seed[:1], bs, seq)
				c.Length, c.Rsums, c.Checksums = 64*bs, slices.Repeat(c.Rsums, 64/seq), randomBytes(7, 64*md4Size)
			}
			m := NewMatcher(c, &memFile{})
			if err := m.Seed(bytes.NewReader(tt.seed)); err != nil {
				t.Fatal(err)
			}
			if limit := hashBudget * int64(len(tt.seed)+4*bs); m.Hashed > limit || m.FromSeed != 0 {
				t.Errorf("%s, seq %d: %d bytes hashed for a seed of %d bytes (%d found), want at most %d", tt.name, seq, m.Hashed, len(tt.seed), m.FromSeed, limit)
			}
		}
	}
}
