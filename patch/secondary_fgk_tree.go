package patch

// The FGK tree update (xdelta3-fgk.h, after Knuth): nodes are kept in a
// list ordered by weight; equal-weight runs form blocks whose leader is
// the rightmost node. Before a node's weight grows it is swapped with its
// block's leader, then moved into the next block.

// update counts one more occurrence of sym.
func (h *fgkSection) update(sym int) {
	n := sym
	if h.nodes[sym].weight == 0 {
		n = h.addLeaf(sym)
	}
	for n != h.root {
		h.moveRight(n)
		h.promote(n)
		h.nodes[n].weight++
		n = h.nodes[n].parent
	}
	h.nodes[h.root].weight++
}

func (h *fgkSection) makeBlock(leader int) int {
	if k := len(h.freeBlock); k > 0 {
		b := h.freeBlock[k-1]
		h.freeBlock = h.freeBlock[:k-1]
		h.leaders[b] = leader
		return b
	}
	h.leaders = append(h.leaders, leader)
	return len(h.leaders) - 1
}

func (h *fgkSection) freeBlockOf(b int) { h.freeBlock = append(h.freeBlock, b) }

// childSlot returns the parent's child field that holds n.
func (h *fgkSection) childSlot(n int) *int {
	p := &h.nodes[h.nodes[n].parent]
	if p.rightChild == n {
		return &p.rightChild
	}
	return &p.leftChild
}

// addLeaf makes the unseen byte sym a leaf of weight 0 beside the zero
// leaf (under a new internal node) and takes it out of the unseen list.
func (h *fgkSection) addLeaf(sym int) int {
	nd := h.nodes[:]
	if h.zeroCount == 1 { // the last unseen byte is the zero leaf itself
		nd[sym].rightChild = fgkNil
		if r := nd[sym].right; nd[r].weight == 1 {
			nd[sym].block = nd[r].block
		} else {
			nd[sym].block = h.makeBlock(sym)
		}
		h.zeros = fgkNil
		return sym
	}
	zero := h.zeros
	in := h.freeNode
	h.freeNode++
	nd[in] = fgkNode{parent: nd[zero].parent, right: nd[zero].right, rightChild: sym, left: sym, leftChild: fgkNil}
	if zero == h.root { // the first byte coded
		h.root = in
		nd[sym].block = h.makeBlock(sym)
		nd[in].block = h.makeBlock(in)
	} else {
		nd[nd[in].right].left = in
		*h.childSlot(zero) = in
		if r := nd[in].right; nd[r].weight == 1 {
			nd[in].block = nd[r].block
		} else {
			nd[in].block = h.makeBlock(in)
		}
		nd[sym].block = nd[in].block
	}
	h.unlinkZero(sym)
	z := h.zeros
	nd[in].leftChild = z
	nd[sym].right, nd[sym].left, nd[sym].parent = in, z, in
	nd[sym].leftChild, nd[sym].rightChild = fgkNil, fgkNil
	nd[z].parent, nd[z].right = in, sym
	return sym
}

// unlinkZero takes n out of the list of unseen bytes.
func (h *fgkSection) unlinkZero(n int) {
	if h.zeroCount == 1 {
		return
	}
	h.factorZeros()
	nd := h.nodes[:]
	prev, next := nd[n].leftChild, nd[n].rightChild
	switch {
	case prev == fgkNil:
		h.zeros = nd[h.zeros].rightChild
		nd[h.zeros].leftChild = fgkNil
	case next == fgkNil:
		nd[prev].rightChild = fgkNil
	default:
		nd[next].leftChild = prev
		nd[prev].rightChild = next
	}
}

// moveRight swaps fwd with the leader of its block, in the weight order
// and in the tree, unless it is the leader, its parent, or of weight 0.
func (h *fgkSection) moveRight(fwd int) {
	nd := h.nodes[:]
	back := h.leaders[nd[fwd].block]
	if fwd == back || nd[fwd].parent == back || nd[fwd].weight == 0 {
		return
	}
	nd[nd[back].right].left = fwd
	if l := nd[fwd].left; l != fgkNil {
		nd[l].right = back
	}
	if tmp := nd[fwd].right; tmp == back {
		nd[fwd].right, nd[back].right = nd[back].right, fwd
	} else {
		nd[fwd].right = nd[back].right
		nd[tmp].left, nd[back].right = back, tmp
	}
	if tmp := nd[back].left; tmp == fwd {
		nd[back].left, nd[fwd].left = nd[fwd].left, back
	} else {
		nd[back].left = nd[fwd].left
		nd[tmp].right, nd[fwd].left = fwd, tmp
	}
	fslot, bslot := h.childSlot(fwd), h.childSlot(back)
	nd[fwd].parent, nd[back].parent = nd[back].parent, nd[fwd].parent
	*fslot, *bslot = back, fwd
	h.leaders[nd[fwd].block] = fwd
}

// promote moves node, now the leader of its block, into the block of
// the next weight.
func (h *fgkSection) promote(n int) {
	nd := h.nodes[:]
	right, left, blk := nd[n].right, nd[n].left, nd[n].block
	if nd[n].weight == 0 {
		return
	}
	joins := right != fgkNil && right != h.root && nd[n].weight == nd[right].weight-1
	if lc := nd[n].leftChild; left == nd[n].rightChild && lc != fgkNil && nd[lc].weight == 0 {
		// The parent of the zero leaf, beside its other child.
		if joins {
			h.freeBlockOf(blk)
			nd[n].block, nd[left].block = nd[right].block, nd[right].block
		}
		return
	}
	if left == h.zeros {
		return
	}
	if nd[left].block == blk {
		h.leaders[blk] = left
	} else {
		h.freeBlockOf(blk)
	}
	if joins {
		nd[n].block = nd[right].block
	} else {
		nd[n].block = h.makeBlock(n)
	}
}
