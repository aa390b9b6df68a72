package guard

import "slices"

// The literal prefilter, all rules at once.
//
// Each rule knows strings one of which every match contains (rule.lits);
// most entries contain none of them, so the rule's regexp need not run.
// Testing thousands of literals one strings.Contains at a time costs more
// than the regexps it saves, so litIndex finds every literal of every
// rule in one pass over each view: an Aho–Corasick automaton over bytes.
// Its cost grows with the text, not with the number of rules.

// litIndex is the automaton. Node 0 is the root. Children of a node are
// kept sorted in one flat array (most nodes have one), the root's in a
// full table since every step that fails falls back to it.
type litIndex struct {
	root      [256]int32 // root transitions; 0 = stay at the root
	first     []int32    // per node: index of its first edge
	count     []int32    // per node: number of edges
	edgeByte  []byte
	edgeNode  []int32
	fail      []int32 // longest proper suffix that is also a node
	out       []int32 // literal ending here, or -1
	dict      []int32 // next node on the fail chain with out ≥ 0, or 0
	literals  int
	bitsWords int // uint64 words in a found set
}

// newLitIndex builds the automaton for lits (distinct, non-empty); the
// literal with index i is reported as bit i.
func newLitIndex(lits []string) *litIndex {
	// A map-based trie first, flattened below.
	type node struct {
		next map[byte]int32
		out  int32
	}
	nodes := []node{{next: map[byte]int32{}, out: -1}}
	for id, l := range lits {
		n := int32(0)
		for i := 0; i < len(l); i++ {
			c, ok := nodes[n].next[l[i]]
			if !ok {
				c = int32(len(nodes))
				nodes = append(nodes, node{next: map[byte]int32{}, out: -1})
				nodes[n].next[l[i]] = c
			}
			n = c
		}
		nodes[n].out = int32(id)
	}
	x := &litIndex{
		first:     make([]int32, len(nodes)),
		count:     make([]int32, len(nodes)),
		fail:      make([]int32, len(nodes)),
		out:       make([]int32, len(nodes)),
		dict:      make([]int32, len(nodes)),
		literals:  len(lits),
		bitsWords: (len(lits) + 63) / 64,
	}
	for i, n := range nodes {
		x.out[i] = n.out
		keys := make([]byte, 0, len(n.next))
		for b := range n.next {
			keys = append(keys, b)
		}
		slices.Sort(keys)
		x.first[i] = int32(len(x.edgeByte))
		x.count[i] = int32(len(keys))
		for _, b := range keys {
			x.edgeByte = append(x.edgeByte, b)
			x.edgeNode = append(x.edgeNode, n.next[b])
			if i == 0 {
				x.root[b] = n.next[b]
			}
		}
	}
	// Failure and dictionary links, breadth first.
	queue := make([]int32, 0, len(nodes))
	for e := x.first[0]; e < x.first[0]+x.count[0]; e++ {
		queue = append(queue, x.edgeNode[e])
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for e := x.first[n]; e < x.first[n]+x.count[n]; e++ {
			c := x.edgeNode[e]
			f := x.step(x.fail[n], x.edgeByte[e])
			x.fail[c] = f
			if x.out[f] >= 0 {
				x.dict[c] = f
			} else {
				x.dict[c] = x.dict[f]
			}
			queue = append(queue, c)
		}
	}
	return x
}

// child returns n's child on b, or -1.
func (x *litIndex) child(n int32, b byte) int32 {
	lo, hi := x.first[n], x.first[n]+x.count[n]
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		switch c := x.edgeByte[m]; {
		case c == b:
			return x.edgeNode[m]
		case c < b:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// step is the automaton's transition: from n on b.
func (x *litIndex) step(n int32, b byte) int32 {
	for n != 0 {
		if c := x.child(n, b); c >= 0 {
			return c
		}
		n = x.fail[n]
	}
	return x.root[b]
}

// scan sets, in found (bitsWords long, zeroed), the bit of every literal
// text contains.
func (x *litIndex) scan(text string, found []uint64) {
	n := int32(0)
	for i := 0; i < len(text); i++ {
		n = x.step(n, text[i])
		for m := n; m != 0; m = x.dict[m] {
			if id := x.out[m]; id >= 0 {
				found[id>>6] |= 1 << (id & 63)
			}
		}
	}
}

// litView is the view a rule's literals are looked up in: the cased view
// shares the lower-cased one's (literals are lower-case).
func litView(v view) view {
	if v == viewCased {
		return viewLower
	}
	return v
}

// litSets holds, per view, which literals the content contains.
type litSets struct {
	words int
	bits  []uint64 // numViews × words
}

// findLiterals scans each view that has rules with literals once; views
// with the same text (viewNative is usually viewWords) share a scan.
func (c *checker) findLiterals(v *views) litSets {
	w := c.lits.bitsWords
	s := litSets{words: w, bits: make([]uint64, int(numViews)*w)}
	for i := range numViews {
		if litView(i) != i {
			continue
		}
		set := s.bits[int(i)*w : int(i+1)*w]
		if j := slices.Index(v[:i], v[i]); j >= 0 && litView(view(j)) == view(j) {
			copy(set, s.bits[j*w:(j+1)*w])
			continue
		}
		c.lits.scan(v[i], set)
	}
	return s
}

// any reports whether the content's view v contains one of ids.
func (s *litSets) any(v view, ids []int32) bool {
	set := s.bits[int(litView(v))*s.words:]
	for _, id := range ids {
		if set[id>>6]&(1<<(id&63)) != 0 {
			return true
		}
	}
	return false
}
