package arbor

// keyIndex maps process-wide key ids (internKey) to the dense slots of an
// agent's blackboard, so that an agent pays for the keys its tree uses,
// not for every key the program has named. A Tree has one, listing the
// agent-scope keys its nodes mention (shared by all its agents, never
// changed once compiled). An agent that writes a key its tree does not
// mention gets its own copy of the index, sharing the tree's slotOf, with
// the extra keys' slots after the tree's.
type keyIndex struct {
	slotOf []int32 // key id → slot of a tree key; -1 for other keys
	ids    []int32 // slot → key id: the tree's keys (the first n), then an agent's own
	n      int     // the tree's keys
	shared bool    // a tree's index: copied before an agent adds keys
	// extra maps an agent's own keys to their slots once it has more than
	// a few (before, a linear search finds them).
	extra map[int32]int32
}

// extraScan is how many keys of its own an agent looks up by a linear
// search before it builds a map of them.
const extraScan = 8

// emptyKeys is the index of a blackboard without tree keys.
var emptyKeys = &keyIndex{shared: true}

// add indexes key id as a tree key (while compiling) and returns its slot.
func (x *keyIndex) add(id int32) int32 {
	if j := x.find(id); j >= 0 {
		return j
	}
	for int(id) >= len(x.slotOf) {
		x.slotOf = append(x.slotOf, -1)
	}
	j := int32(len(x.ids))
	x.ids = append(x.ids, id)
	x.slotOf[id] = j
	x.n++
	return j
}

// find returns key id's slot, or -1.
func (x *keyIndex) find(id int32) int32 {
	if uint(id) < uint(len(x.slotOf)) {
		if j := x.slotOf[id]; j >= 0 {
			return j
		}
	}
	if x.extra != nil {
		if j, ok := x.extra[id]; ok {
			return j
		}
		return -1
	}
	for j := x.n; j < len(x.ids); j++ {
		if x.ids[j] == id {
			return int32(j)
		}
	}
	return -1
}

// localSlot returns the slot of agent-scope key id for writing, adding one
// for a key the tree does not mention.
func (b *Blackboard) localSlot(id int32) *slot {
	j := b.keys.find(id)
	if j < 0 {
		if b.keys.shared {
			x := *b.keys
			x.ids, x.shared = append([]int32(nil), x.ids...), false
			b.keys = &x
		}
		x := b.keys
		x.ids = append(x.ids, id)
		if old := b.local; len(old) == cap(old) {
			// The slots move: those left behind (the agent's own
			// allocation, agentLayout) must not keep their values alive.
			b.local = append(old, slot{})
			clear(old)
		} else {
			b.local = append(old, slot{})
		}
		j = int32(len(b.local) - 1)
		switch {
		case x.extra != nil:
			x.extra[id] = j
		case len(x.ids)-x.n > extraScan:
			x.extra = make(map[int32]int32, 2*extraScan)
			for k := x.n; k < len(x.ids); k++ {
				x.extra[x.ids[k]] = int32(k)
			}
		}
	}
	return &b.local[j]
}

// adopt lays the blackboard out for a tree's key index, keeping the
// values it holds. local, when not nil, is room for the index's slots,
// zeroed (a new agent's: bindIn); its capacity is its length, so that
// localSlot's append of a key of the agent's own moves the slots rather
// than write past them.
func (b *Blackboard) adopt(keys *keyIndex, local []slot) {
	if keys == b.keys {
		return
	}
	old := *b
	if local == nil {
		local = make([]slot, len(keys.ids))
	}
	b.keys, b.local = keys, local
	for j := range old.local {
		if old.local[j].kind != KindNone {
			*b.localSlot(old.keys.ids[j]) = old.local[j]
		}
	}
	// The slots left behind (maybe in the agent's own allocation, which
	// lives as long as the agent) must not keep their values alive.
	clear(old.local)
}

// treeSlot returns the slot of agent-scope key id if it is one of the
// tree's keys (the fast paths of Key.Get and Key.Has; Key.Set writes it
// out), else nil: then the key has no slot or one of the agent's own,
// which find looks up.
func (b *Blackboard) treeSlot(id int32) *slot {
	slotOf, i := b.keys.slotOf, int(id)
	if uint(i) < uint(len(slotOf)) {
		if j := int(slotOf[i]); uint(j) < uint(len(b.local)) {
			return &b.local[j]
		}
	}
	return nil
}
