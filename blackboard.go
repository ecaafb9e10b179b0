package arbor

import (
	"math"
	"sort"
	"time"
)

// slot is one blackboard entry: a Value laid out flat so that writing a
// number or a boolean touches no pointer field (no write barrier). A slot
// of kind KindNone is absent.
type slot struct {
	kind Kind
	ttl  bool // exp is meaningful
	num  float64
	exp  int64 // present while now ≤ exp (nanoseconds of game time)
	ref  any   // string or other Go value
}

func (s *slot) value() Value { return Value{kind: s.kind, num: s.num, ref: s.ref} }

func (s *slot) setScalar(k Kind, f float64) {
	s.kind, s.num, s.ttl = k, f, false
	if s.ref != nil {
		s.dropRef()
	}
}

// dropRef clears the slot's reference (kept out of setScalar so that
// setScalar, on hot paths, is small).
//
//go:noinline
func (s *slot) dropRef() { s.ref = nil }

func (s *slot) setNum(f float64) { s.setScalar(KindNumber, f) }

func (s *slot) set(v Value) {
	s.kind, s.num, s.ref = v.kind, v.num, v.ref
}

// Globals is the global blackboard scope: keys beginning with "@". A
// standalone agent has its own; a Manager shares one among all its agents.
//
// Globals is not safe for concurrent use. Agents write it from their ticks;
// during a Manager tick their writes are buffered and applied when the
// tick ends, so Set and SetTTL must not be called while a Manager using
// it ticks (call them between ticks, from the goroutine that ticks).
type Globals struct {
	slots []slot
	// ticking is set by a Manager during its tick: the scope is then
	// read-only and agents' writes wait in their globalBuffer.
	ticking bool
}

// NewGlobals returns an empty global scope.
func NewGlobals() *Globals { return &Globals{} }

// Blackboard is an agent's key-value memory: the agent scope, plus access to
// the global scope. Values read through typed Keys or by name; entries may
// expire (TTL) on the agent's clock, the time of its last tick.
//
// A Blackboard belongs to one agent and is not safe for concurrent use;
// write to it between ticks or from the agent's own nodes.
type Blackboard struct {
	local []slot    // agent scope, one slot per key of keys
	keys  *keyIndex // the tree's keys (and the agent's others)
	now   int64
	// During a Manager tick the global scope is read-only and shared: the
	// agent's global writes wait in gbuf (read back by the agent itself)
	// until the manager applies them in agent order (dirty).
	gbuf   *globalBuffer
	global *Globals
}

// dirty reports whether the blackboard holds global writes that wait for
// the end of a Manager tick. (It is not a field: an agent's Blackboard is
// part of every agent, and the byte of a flag took eight there.)
func (b *Blackboard) dirty() bool { return b.gbuf != nil && len(b.gbuf.pending) > 0 }

// globalBuffer holds an agent's global writes of a Manager tick.
type globalBuffer struct {
	pending []pendingGlobal
}

// pendingGlobal is a global write made during a Manager tick.
type pendingGlobal struct {
	id int32
	s  slot
}

// pendingSlot returns the agent's pending write of global key id, or nil.
func (b *Blackboard) pendingSlot(id int32) *slot {
	if b.gbuf == nil {
		return nil
	}
	p := b.gbuf.pending
	for i := range p {
		if p[i].id == id {
			return &p[i].s
		}
	}
	return nil
}

// flushPending applies the agent's pending global writes.
func (b *Blackboard) flushPending() {
	g := b.global
	pending := b.gbuf.pending
	for i := range pending {
		p := &pending[i]
		if int(p.id) >= len(g.slots) {
			g.slots = growSlots(g.slots, int(p.id)+1)
		}
		g.slots[p.id] = p.s
		p.s = slot{}
	}
	b.gbuf.pending = pending[:0]
}

// Now returns the blackboard's clock: the time of the agent's last tick.
func (b *Blackboard) Now() time.Duration { return time.Duration(b.now) }

// Globals returns the global scope this blackboard reads and writes.
func (b *Blackboard) Globals() *Globals { return b.global }

// get returns the slot of key id if it holds a value that has not
// expired, else nil.
func (b *Blackboard) get(id int32, global bool) *slot {
	if !global {
		if j := b.keys.find(id); j >= 0 {
			return b.present(&b.local[j])
		}
		return nil
	}
	if b.global.ticking {
		if s := b.pendingSlot(id); s != nil {
			return b.present(s)
		}
	}
	if t := b.global.slots; uint(id) < uint(len(t)) {
		return b.present(&t[id])
	}
	return nil
}

// present returns s if it holds a value that has not expired, else nil.
func (b *Blackboard) present(s *slot) *slot {
	if s.kind == KindNone || (s.ttl && b.now > s.exp) {
		return nil
	}
	return s
}

// lookup returns the value of key id, if present and not expired.
func (b *Blackboard) lookup(id int32, global bool) (Value, bool) {
	if s := b.get(id, global); s != nil {
		return s.value(), true
	}
	return Value{}, false
}

// slot returns the slot of key id for writing, growing the table.
func (b *Blackboard) slot(id int32, global bool) *slot {
	if global && b.global.ticking {
		if s := b.pendingSlot(id); s != nil {
			return s
		}
		if b.gbuf == nil {
			b.gbuf = &globalBuffer{}
		}
		b.gbuf.pending = append(b.gbuf.pending, pendingGlobal{id: id})
		return &b.gbuf.pending[len(b.gbuf.pending)-1].s
	}
	if !global {
		return b.localSlot(id)
	}
	g := b.global
	if int(id) >= len(g.slots) {
		g.slots = growSlots(g.slots, int(id)+1)
	}
	return &g.slots[id]
}

// store writes (or, for a missing Value, deletes) key id.
func (b *Blackboard) store(id int32, global bool, v Value, hasTTL bool, ttl time.Duration) {
	if v.kind == KindNone {
		if (global && (b.global.ticking || int(id) < len(b.global.slots))) || (!global && b.keys.find(id) >= 0) {
			s := b.slot(id, global)
			s.set(Value{})
			s.ttl = false
		}
		return
	}
	s := b.slot(id, global)
	s.set(v)
	s.ttl = hasTTL
	if hasTTL {
		s.exp = expiry(b.now, int64(ttl))
	}
}

func growSlots(t []slot, n int) []slot {
	if n <= cap(t) {
		return t[:n]
	}
	c := 2 * cap(t)
	if c < n {
		c = n
	}
	nt := make([]slot, n, c)
	copy(nt, t)
	return nt
}

// Lookup returns the value of the named key and whether it is present.
func (b *Blackboard) Lookup(name string) (Value, bool) {
	return b.lookup(internKey(name), isGlobalName(name))
}

// Value returns the value of the named key (missing when absent).
func (b *Blackboard) Value(name string) Value {
	v, _ := b.Lookup(name)
	return v
}

// Set writes a Go value (converted by ValueOf) to the named key; nil deletes
// the key. A name beginning with "@" writes the global scope (during a
// Manager tick, buffered until the tick ends, see Manager).
func (b *Blackboard) Set(name string, v any) {
	b.store(internKey(name), isGlobalName(name), ValueOf(v), false, 0)
}

// SetTTL writes a value that is present while now ≤ t + ttl, where t is the
// agent's current time.
func (b *Blackboard) SetTTL(name string, v any, ttl time.Duration) {
	b.store(internKey(name), isGlobalName(name), ValueOf(v), true, ttl)
}

// Delete removes the named key.
func (b *Blackboard) Delete(name string) {
	b.store(internKey(name), isGlobalName(name), Value{}, false, 0)
}

// Entry is one present blackboard entry, as listed by Entries.
type Entry struct {
	Key     string
	Value   Value
	Expires time.Duration // the last instant the entry is present
	HasTTL  bool
}

// Entries lists the present entries of both scopes, sorted by key. During
// a Manager tick the global entries are those of the tick's start: the
// agent's own global writes of the tick are applied when it ends.
func (b *Blackboard) Entries() []Entry {
	var out []Entry
	add := func(id int32, s *slot) {
		if s.kind != KindNone && (!s.ttl || b.now <= s.exp) {
			out = append(out, Entry{Key: keyName(id), Value: s.value(), Expires: time.Duration(s.exp), HasTTL: s.ttl})
		}
	}
	for j := range b.local {
		add(b.keys.ids[j], &b.local[j])
	}
	for id := range b.global.slots {
		add(int32(id), &b.global.slots[id])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Set writes a global value directly (outside agents' ticks: between
// Manager ticks, or before agents run); nil deletes. The "@" prefix of name
// is optional.
func (g *Globals) Set(name string, v any) {
	g.slot(name).set(ValueOf(v))
}

// SetTTL writes a global value directly, as Set does, that is present
// while an agent's clock is at most at + ttl (at: the game time of the
// write, as the caller's clock has it).
func (g *Globals) SetTTL(name string, v any, at, ttl time.Duration) {
	s := g.slot(name)
	s.set(ValueOf(v))
	if s.kind != KindNone {
		s.ttl, s.exp = true, expiry(int64(at), int64(ttl))
	}
}

// slot returns the slot of global key name ("@" optional), its TTL cleared.
func (g *Globals) slot(name string) *slot {
	if !isGlobalName(name) {
		name = "@" + name
	}
	id := internKey(name)
	if int(id) >= len(g.slots) {
		g.slots = growSlots(g.slots, int(id)+1)
	}
	s := &g.slots[id]
	s.ttl = false
	return s
}

// Entries lists the present global entries as an agent whose clock is at
// now would see them, sorted by key.
func (g *Globals) Entries(now time.Duration) []Entry {
	b := Blackboard{global: g, now: int64(now)}
	var out []Entry
	for id := range g.slots {
		if s := b.present(&g.slots[id]); s != nil {
			out = append(out, Entry{Key: keyName(int32(id)), Value: s.value(), Expires: time.Duration(s.exp), HasTTL: s.ttl})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Lookup returns a global value as an agent whose clock is at now would
// read it. The "@" prefix of name is optional.
func (g *Globals) Lookup(name string, now time.Duration) (Value, bool) {
	if !isGlobalName(name) {
		name = "@" + name
	}
	b := Blackboard{global: g, now: int64(now)}
	return b.lookup(internKey(name), true)
}

// expiry returns the last time (ns) a value written at now with a TTL of
// ttl ns is present: now + ttl, or the largest time when that overflows.
func expiry(now, ttl int64) int64 {
	if ttl > 0 && now > math.MaxInt64-ttl {
		return math.MaxInt64
	}
	return now + ttl
}
