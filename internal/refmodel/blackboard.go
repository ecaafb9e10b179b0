package refmodel

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// entry is one blackboard entry: a value, and when it has a time to live,
// the last instant it is present.
type entry struct {
	v       value
	hasTTL  bool
	expires time.Duration
}

// Blackboard is the model's blackboard (semantics §8): one map for both
// scopes. The agent scope and the global scope ("@" keys) differ only in
// sharing between agents, and the model runs a single standalone agent,
// which has a global scope of its own; so one map is enough.
type Blackboard struct {
	m   map[string]entry
	now time.Duration // the agent's clock: the time of its last tick
}

func newBlackboard() *Blackboard { return &Blackboard{m: map[string]entry{}} }

// lookup returns a present value. §8: "a value set at time t with ttl d is
// present while now ≤ t + d; after that it reads as missing".
func (b *Blackboard) lookup(key string) (value, bool) {
	e, ok := b.m[key]
	if !ok || (e.hasTTL && b.now > e.expires) {
		return value{}, false
	}
	return e.v, true
}

// store writes v (deleting the key when v is missing, §8 "A JSON null
// written to a key deletes it"), with a time to live when hasTTL, counted
// from the agent's current time.
func (b *Blackboard) store(key string, v value, hasTTL bool, ttl time.Duration) {
	if v.kind == kMissing {
		delete(b.m, key)
		return
	}
	e := entry{v: v, hasTTL: hasTTL}
	if hasTTL {
		e.expires = b.now + ttl
	}
	b.m[key] = e
}

// Set writes a Go value (nil deletes), as game code does between ticks.
func (b *Blackboard) Set(key string, x any) { b.store(key, valueOf(x), false, 0) }

// SetTTL writes a Go value present while now ≤ t + ttl, t being the agent's
// current time (the time of its last tick).
func (b *Blackboard) SetTTL(key string, x any, ttl time.Duration) {
	b.store(key, valueOf(x), true, ttl)
}

// Delete removes a key.
func (b *Blackboard) Delete(key string) { delete(b.m, key) }

// Entry is one present entry, as Entries lists it.
type Entry struct {
	Key     string
	Value   any // the Go value: bool, float64, string or other
	HasTTL  bool
	Expires time.Duration // the last instant the entry is present (with HasTTL)
}

// Entries lists the present entries, sorted by key.
func (b *Blackboard) Entries() []Entry {
	var out []Entry
	for k := range b.m {
		if v, ok := b.lookup(k); ok {
			e := b.m[k]
			out = append(out, Entry{Key: k, Value: v.goValue(), HasTTL: e.hasTTL, Expires: e.expires})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// SameValue reports whether two Go values are the same blackboard value:
// the same kind, numbers bit for bit (any NaN is the same as any other),
// lists and maps deeply.
func SameValue(x, y any) bool { return same(valueOf(x), valueOf(y)) }

// DescribeValue formats a Go value with its kind, for messages.
func DescribeValue(x any) string {
	v := valueOf(x)
	return v.String() + "(" + v.kind.String() + ")"
}

func (v value) goValue() any {
	switch v.kind {
	case kBool:
		return v.b
	case kNumber:
		return v.f
	case kString:
		return v.s
	}
	return v.o
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func sprint(x any) string { return fmt.Sprint(x) }
