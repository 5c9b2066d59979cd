package patch

// xdelta3's FGK secondary compressor (xdelta3-fgk.h) is adaptive Huffman
// coding (Faller, Gallager, Knuth: "Dynamic Huffman Coding", J. Algorithms
// 6). The tree starts with one zero-weight leaf standing for every byte not
// yet seen; a new byte is coded as the path to that leaf followed by its
// index among the unseen bytes, most significant bit first, in exp bits
// (exp+1 when the unseen count is not a power of two). The tree lives for
// the whole delta, one per kind of section, so it carries over from window
// to window. Bits are read from the least significant bit of each byte up;
// a section ends with the symbol that fills its decoded size.
//
// The decoder must rebuild exactly the encoder's tree, including which of
// two equal-weight nodes moves where, so the update steps follow xdelta3's.

const fgkNil = -1

type fgkNode struct {
	weight                uint32
	parent                int
	leftChild, rightChild int // in the tree; in the zero list: previous, next
	left, right           int // neighbours in the order of weights
	block                 int
}

// fgkSection decodes one kind of section of every window.
type fgkSection struct {
	ready     bool
	nodes     [2*256 - 1]fgkNode
	leaders   []int // leader node of each block
	freeBlock []int
	freeNode  int
	root      int
	zeros     int // head of the list of unseen bytes
	zeroCount int
	zeroExp   int
	zeroRem   int
	cur       int // node reached while decoding a code
	index     int // bits of an unseen byte's index read so far
	indexBits int
}

func (h *fgkSection) init() {
	h.ready = true
	h.root, h.cur, h.zeros, h.freeNode = 0, 0, 0, 256
	h.zeroCount = 256 + 1
	h.factorZeros()
	for i := range 256 {
		h.nodes[i] = fgkNode{parent: fgkNil, leftChild: i - 1, rightChild: i + 1, left: fgkNil, right: fgkNil, block: fgkNil}
	}
	h.nodes[255].rightChild = fgkNil
}

// factorZeros drops the unseen count by one and splits it as 2^exp + rem.
func (h *fgkSection) factorZeros() {
	h.zeroCount--
	h.zeroExp = 0
	for i := h.zeroCount; i > 1; i >>= 1 {
		h.zeroExp++
	}
	h.zeroRem = h.zeroCount - 1<<h.zeroExp
}

func (h *fgkSection) decode(src, buf []byte, size int) ([]byte, error) {
	dst, err := prefixCoded("fgk", src, buf, size)
	if err != nil {
		return nil, err
	}
	if !h.ready {
		h.init()
	}
	n := 0
	for i, c := range src {
		for bit := 0; bit < 8; bit++ {
			if !h.step(c>>bit&1 == 1) {
				continue
			}
			dst[n] = byte(h.symbol())
			if n++; n == len(dst) {
				if i != len(src)-1 {
					return nil, corruptf("fgk: %d bytes left unused", len(src)-1-i)
				}
				if c>>(bit+1) != 0 {
					return nil, corruptf("fgk: non-zero bits after the last code")
				}
				return dst, nil
			}
		}
	}
	return nil, corruptf("fgk: input ends after %d of %d bytes", n, len(dst))
}

// step takes one bit and reports whether a symbol is complete.
func (h *fgkSection) step(b bool) bool {
	nd := &h.nodes[h.cur]
	if nd.weight == 0 { // reading an unseen byte's index
		h.index <<= 1
		if b {
			h.index |= 1
		}
		h.indexBits++
		need := h.zeroExp
		if h.zeroRem != 0 {
			need++
		}
		return h.indexBits >= need
	}
	if b {
		h.cur = nd.rightChild
	} else {
		h.cur = nd.leftChild
	}
	nd = &h.nodes[h.cur]
	if nd.leftChild != fgkNil {
		return false
	}
	return nd.weight != 0 || h.zeroCount == 1
}

// symbol returns the byte whose code is complete and updates the tree.
func (h *fgkSection) symbol() int {
	sym := h.cur
	if h.nodes[sym].weight == 0 {
		sym = h.zeros
		for n := h.index; n != 0 && h.nodes[sym].rightChild != fgkNil; n-- {
			sym = h.nodes[sym].rightChild
		}
	}
	h.index, h.indexBits = 0, 0
	h.update(sym)
	h.cur = h.root
	return sym
}
