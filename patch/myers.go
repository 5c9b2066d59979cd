package patch

import "math"

// diffLines compares two sequences of line numbers with Myers' O(ND)
// algorithm in linear space (the divide-and-conquer "middle snake", as in
// GNU diff), giving up on optimality when a split costs more than
// tooExpensive steps. It returns which elements of a were deleted and which
// of b were inserted.
func diffLines(a, b []int) ([]bool, []bool) {
	n, m := len(a), len(b)
	d := &differ{a: a, b: b, da: make([]bool, n), db: make([]bool, m)}
	d.fd = make([]int, n+m+3)
	d.bd = make([]int, n+m+3)
	d.off = m + 1
	te := 1
	for diags := n + m + 3; diags != 0; diags >>= 2 {
		te <<= 1
	}
	d.tooExpensive = max(4096, te)
	d.compare(0, n, 0, m)
	return d.da, d.db
}

type differ struct {
	a, b         []int
	da, db       []bool
	fd, bd       []int // furthest x on each diagonal k, at index k+off
	off          int
	tooExpensive int
}

func (d *differ) compare(x0, x1, y0, y1 int) {
	for x0 < x1 && y0 < y1 && d.a[x0] == d.b[y0] {
		x0, y0 = x0+1, y0+1
	}
	for x1 > x0 && y1 > y0 && d.a[x1-1] == d.b[y1-1] {
		x1, y1 = x1-1, y1-1
	}
	switch {
	case x0 == x1:
		for y := y0; y < y1; y++ {
			d.db[y] = true
		}
	case y0 == y1:
		for x := x0; x < x1; x++ {
			d.da[x] = true
		}
	default:
		x, y := d.split(x0, x1, y0, y1)
		if (x == x0 && y == y0) || (x == x1 && y == y1) {
			for i := x0; i < x1; i++ {
				d.da[i] = true
			}
			for j := y0; j < y1; j++ {
				d.db[j] = true
			}
			return
		}
		d.compare(x0, x, y0, y)
		d.compare(x, x1, y, y1)
	}
}

// split finds a point on a middle snake of the box, or a good point when
// that is too expensive.
func (d *differ) split(x0, x1, y0, y1 int) (int, int) {
	fd, bd, o := d.fd, d.bd, d.off
	dmin, dmax := x0-y1, x1-y0
	fmid, bmid := x0-y0, x1-y1
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[fmid+o], bd[bmid+o] = x0, x1
	for c := 1; ; c++ {
		if fmin > dmin {
			fmin--
			fd[fmin-1+o] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[fmax+1+o] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fd[k-1+o], fd[k+1+o]
			x := hi
			if lo >= hi {
				x = lo + 1
			}
			y := x - k
			for x < x1 && y < y1 && d.a[x] == d.b[y] {
				x, y = x+1, y+1
			}
			fd[k+o] = x
			if odd && bmin <= k && k <= bmax && bd[k+o] <= x {
				return x, y
			}
		}
		if bmin > dmin {
			bmin--
			bd[bmin-1+o] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[bmax+1+o] = math.MaxInt
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bd[k-1+o], bd[k+1+o]
			x := hi - 1
			if lo < hi {
				x = lo
			}
			y := x - k
			for x > x0 && y > y0 && d.a[x-1] == d.b[y-1] {
				x, y = x-1, y-1
			}
			bd[k+o] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[k+o] {
				return x, y
			}
		}
		if c >= d.tooExpensive {
			return d.heuristic(x0, x1, y0, y1, fmin, fmax, bmin, bmax)
		}
	}
}

// heuristic picks the forward or backward frontier point that got furthest.
func (d *differ) heuristic(x0, x1, y0, y1, fmin, fmax, bmin, bmax int) (int, int) {
	fd, bd, o := d.fd, d.bd, d.off
	fbest, fx := -1, 0
	for k := fmax; k >= fmin; k -= 2 {
		x := min(fd[k+o], x1)
		y := x - k
		if y1 < y {
			x, y = y1+k, y1
		}
		if x+y > fbest {
			fbest, fx = x+y, x
		}
	}
	bbest, bx := math.MaxInt, 0
	for k := bmax; k >= bmin; k -= 2 {
		x := max(x0, bd[k+o])
		y := x - k
		if y < y0 {
			x, y = y0+k, y0
		}
		if x+y < bbest {
			bbest, bx = x+y, x
		}
	}
	if (x1+y1)-bbest < fbest-(x0+y0) {
		return fx, fbest - fx
	}
	return bx, bbest - bx
}
