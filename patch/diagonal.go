package patch

// A diagonal is an alignment of base and target: base offset less target
// offset. A long source copy sets one (an unchanged stretch of the base),
// and after a short change the target usually goes on along it. The
// matcher tries the diagonals of its last few long copies at every
// position, most recent first: in a tar of source files a long copy from
// elsewhere (a licence header, a file shared by two packages) must not
// make it forget the file's own alignment.
const (
	anchorLen    = 256 // a copy at least this long sets a diagonal
	maxDiagonals = 4   // diagonals kept
)

// diagonals are the diagonals of the last long copies, most recent first.
type diagonals struct {
	d [maxDiagonals]int64
	n int
}

// note makes d the most recent diagonal.
func (ds *diagonals) note(d int64) {
	i := 0
	for i < ds.n && ds.d[i] != d {
		i++
	}
	if i == ds.n && ds.n < maxDiagonals {
		ds.n++
	}
	copy(ds.d[1:min(i+1, ds.n)], ds.d[:i])
	ds.d[0] = d
}

// onDiagonal returns the match at q on diagonal d, unless it is where the
// last copy's continuation was already tried or the match seen or c again.
func (m *matcher) onDiagonal(t []byte, q int, d int64, predT int, predS int64, seen, c candidate) candidate {
	sp := d + m.tpos + int64(q)
	if sp < 0 || sp >= m.src.size || predT >= 0 && sp == predS+int64(q-predT) || seen.covers(q, sp) || c.covers(q, sp) {
		return candidate{}
	}
	if f := m.src.matchForward(sp, t[q:]); f >= minPredicted && m.fits(sp, f) {
		return candidate{start: q, n: f, addr: sp}
	}
	return candidate{}
}

// localCenter is where the local search looks for q: the base position on
// the most recent diagonal, else the end of the last source copy.
func (m *matcher) localCenter(q int) int64 {
	if m.diag.n > 0 {
		if p := m.diag.d[0] + m.tpos + int64(q); p >= 0 && p < m.src.size {
			return p
		}
	}
	return m.lastEnd
}
