package arbor

import (
	"bufio"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Snapshots hold an agent's running state and agent-scope blackboard in a
// versioned, compact binary form (varints). They record the fingerprint of
// the tree they were taken from; see Agent.Snapshot and Agent.Restore.

const (
	agentMagic   = "ARBA"
	managerMagic = "ARBM"
	snapVersion  = 2
	// maxSnapshot bounds every length read from a snapshot, so that bad
	// input cannot make Restore allocate without bound.
	maxSnapshot = 1 << 28
)

// ErrTreeMismatch is returned (wrapped) by Restore when a snapshot was taken
// from another tree definition.
var ErrTreeMismatch = errors.New("snapshot is of another tree definition")

// Fingerprint identifies the tree definition: two trees compiled from the
// same definition (with the same node types) have the same fingerprint.
func (t *Tree) Fingerprint() string {
	t.fpOnce.Do(func() {
		h := sha256.New()
		w := func(format string, args ...any) { fmt.Fprintf(h, format, args...) }
		for i := range t.nodes {
			n, m := &t.nodes[i], &t.meta[i]
			// Key ids depend on the process; only the names of the keys a
			// node uses identify it.
			var key, valKey string
			if n.kind == kCheck || n.kind == kSet || n.kind == kSwitch {
				key = keyName(n.key.id)
				if n.valRef {
					valKey = keyName(n.valKey.id)
				}
			}
			w("%d|%q|%q|%q|%d|%d|%v|%d|%d|%d|%d|%d|%d|%v|%d|%d|%d|%d|%v|%q|%q|%v|%v|%v|%d|",
				i, m.typ, m.name, m.path, n.kind, n.abort, n.flag, n.op, n.guard, n.mem, n.actW, n.umem, n.umemW,
				n.umemHeap, n.comp, n.end, n.a, n.b, n.kids, key, valKey, n.val, n.valRef,
				n.hasTTL, m.parent)
			keys := make([]string, 0, len(m.params))
			for k := range m.params {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				w("%q=%v;", k, m.params[k])
			}
		}
		t.fp = hex.EncodeToString(h.Sum(nil)[:16])
	})
	return t.fp
}

// A Codec encodes blackboard values of one Go type for snapshots.
type codec struct {
	name string
	typ  reflect.Type
	enc  func(any) ([]byte, error)
	dec  func([]byte) (any, error)
}

var codecs = struct {
	sync.RWMutex
	byType map[reflect.Type]*codec
	byName map[string]*codec
}{byType: map[reflect.Type]*codec{}, byName: map[string]*codec{}}

// RegisterCodec makes blackboard values of type T snapshottable under a
// name that identifies the type in snapshot data (keep it stable across
// versions of the program). Lists ([]any) and objects (map[string]any) of
// JSON values, as trees and scenario files write them, have a built-in
// codec; any other type without a codec makes Snapshot fail with an error
// naming it, never a silent loss. A panic in enc or dec is an error of the
// Snapshot or Restore that called it.
func RegisterCodec[T any](name string, enc func(T) ([]byte, error), dec func([]byte) (T, error)) {
	c := &codec{
		name: name,
		typ:  reflect.TypeOf((*T)(nil)).Elem(),
		enc: func(v any) (data []byte, err error) {
			defer recoverCodec(name, "encoder", &err)
			return enc(v.(T))
		},
		dec: func(b []byte) (v any, err error) {
			defer recoverCodec(name, "decoder", &err)
			return dec(b)
		},
	}
	codecs.Lock()
	defer codecs.Unlock()
	codecs.byType[c.typ] = c
	codecs.byName[name] = c
}

// recoverCodec turns a panic of a user codec into its error.
func recoverCodec(name, part string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("codec %q: the %s panicked: %v", name, part, r)
	}
}

// jsonEnc encodes a list or object of JSON values (nil, bool, float64,
// string, []any, map[string]any, and Go integers and floats, which are
// numbers); anything else inside would not come back as it was, and is an
// error.
func jsonEnc(v any) ([]byte, error) {
	if err := jsonOnly(v, ""); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// jsonOnly checks that v holds only JSON values; at names the place of v.
func jsonOnly(v any, at string) error {
	switch t := v.(type) {
	case nil, bool, string, float64, float32:
		return nil // NaN and infinities: json.Marshal's error
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		if f, _ := ValueOf(t).Number(); math.Abs(f) > 1<<53 {
			return fmt.Errorf("%s: the integer %v is not exact as a number (a float64)", where(at), t)
		}
		return nil
	case []any:
		for i, e := range t {
			if err := jsonOnly(e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		for k, e := range t {
			if err := jsonOnly(e, fmt.Sprintf("%s.%s", at, k)); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s is %s, which a list or object snapshot cannot keep (store it under its own key, with a codec: see RegisterCodec)", where(at), article(fmt.Sprintf("%T", v)))
}

func where(at string) string {
	if at == "" {
		return "the value"
	}
	return "element " + strings.TrimPrefix(at, ".")
}

func init() {
	RegisterCodec("arbor/list", func(v []any) ([]byte, error) { return jsonEnc(v) }, func(b []byte) ([]any, error) {
		var v []any
		err := json.Unmarshal(b, &v)
		return v, err
	})
	RegisterCodec("arbor/object", func(v map[string]any) ([]byte, error) { return jsonEnc(v) }, func(b []byte) (map[string]any, error) {
		var v map[string]any
		err := json.Unmarshal(b, &v)
		return v, err
	})
}

// snapWriter appends the binary encoding.
type snapWriter struct{ buf []byte }

func (w *snapWriter) uvarint(x uint64) { w.buf = binary.AppendUvarint(w.buf, x) }
func (w *snapWriter) varint(x int64)   { w.buf = binary.AppendVarint(w.buf, x) }
func (w *snapWriter) byte1(b byte)     { w.buf = append(w.buf, b) }
func (w *snapWriter) bytes(b []byte)   { w.uvarint(uint64(len(b))); w.buf = append(w.buf, b...) }
func (w *snapWriter) str(s string)     { w.uvarint(uint64(len(s))); w.buf = append(w.buf, s...) }
func (w *snapWriter) boolean(b bool) {
	if b {
		w.byte1(1)
	} else {
		w.byte1(0)
	}
}

// snapReader reads it back, remembering the first error.
type snapReader struct {
	buf []byte
	err error
}

func (r *snapReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("snapshot: "+format, args...)
	}
}

func (r *snapReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.buf)
	if n <= 0 {
		r.fail("truncated or bad number")
		return 0
	}
	r.buf = r.buf[n:]
	return x
}

func (r *snapReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.buf)
	if n <= 0 {
		r.fail("truncated or bad number")
		return 0
	}
	r.buf = r.buf[n:]
	return x
}

func (r *snapReader) byte1() byte {
	if r.err != nil {
		return 0
	}
	if len(r.buf) == 0 {
		r.fail("truncated")
		return 0
	}
	b := r.buf[0]
	r.buf = r.buf[1:]
	return b
}

func (r *snapReader) boolean() bool { return r.byte1() != 0 }

// count reads a length and checks it against what is left and max.
func (r *snapReader) count(max int) int {
	n := r.uvarint()
	if r.err == nil && (n > uint64(max) || n > uint64(len(r.buf))+uint64(max)) {
		r.fail("length %d out of range", n)
		return 0
	}
	return int(n)
}

func (r *snapReader) bytes() []byte {
	n := r.count(maxSnapshot)
	if r.err != nil {
		return nil
	}
	if n > len(r.buf) {
		r.fail("truncated")
		return nil
	}
	b := r.buf[:n]
	r.buf = r.buf[n:]
	return b
}

func (r *snapReader) str() string { return string(r.bytes()) }

// writeSlot encodes a present blackboard entry.
func writeSlot(w *snapWriter, name string, s *slot) error {
	w.str(name)
	w.byte1(byte(s.kind))
	w.boolean(s.ttl)
	w.varint(s.exp)
	switch s.kind {
	case KindBool, KindNumber:
		w.uvarint(math.Float64bits(s.num))
	case KindString:
		str, _ := s.ref.(string)
		w.str(str)
	case KindOther:
		codecs.RLock()
		c := codecs.byType[reflect.TypeOf(s.ref)]
		codecs.RUnlock()
		if c == nil {
			return fmt.Errorf("blackboard key %q holds a %T, which has no codec (see RegisterCodec)", name, s.ref)
		}
		data, err := c.enc(s.ref)
		if err != nil {
			return fmt.Errorf("blackboard key %q: encode %T: %w", name, s.ref, err)
		}
		w.str(c.name)
		w.bytes(data)
	}
	return nil
}

// readSlot decodes an entry written by writeSlot.
func readSlot(r *snapReader) (string, slot) {
	name := r.str()
	var s slot
	s.kind = Kind(r.byte1())
	s.ttl = r.boolean()
	s.exp = r.varint()
	switch s.kind {
	case KindBool, KindNumber:
		s.num = math.Float64frombits(r.uvarint())
	case KindString:
		s.ref = r.str()
	case KindOther:
		cname := r.str()
		data := r.bytes()
		if r.err != nil {
			return name, s
		}
		codecs.RLock()
		c := codecs.byName[cname]
		codecs.RUnlock()
		if c == nil {
			r.fail("blackboard key %q: no codec named %q (see RegisterCodec)", name, cname)
			return name, s
		}
		v, err := c.dec(data)
		if err != nil {
			r.fail("blackboard key %q: decode %s: %v", name, cname, err)
		}
		s.ref = v
	default:
		r.fail("blackboard key %q: bad kind %d", name, s.kind)
	}
	if name == "" {
		r.fail("empty blackboard key name")
	}
	return name, s
}

// writeTable encodes the present entries of a blackboard table; id gives
// each slot's key id.
func writeTable(w *snapWriter, t []slot, id func(int) int32) error {
	n := 0
	for i := range t {
		if t[i].kind != KindNone {
			n++
		}
	}
	w.uvarint(uint64(n))
	for i := range t {
		if t[i].kind != KindNone {
			if err := writeSlot(w, keyName(id(i)), &t[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// readTable decodes entries (by key name) and puts each.
func readTable(r *snapReader, global bool, put func(id int32, s slot)) {
	n := r.count(maxSnapshot)
	for k := 0; k < n && r.err == nil; k++ {
		name, s := readSlot(r)
		if r.err != nil {
			return
		}
		if isGlobalName(name) != global {
			r.fail("blackboard key %q in the wrong scope", name)
			return
		}
		put(internKey(name), s)
	}
}

// Snapshot encodes the agent's running state (running nodes, node and
// user memory, observers, status, paused) and its agent-scope blackboard.
// Take it between ticks. User node memory that holds pointers (strings,
// slices and maps included) must implement encoding.BinaryMarshaler and
// BinaryUnmarshaler, or Snapshot fails naming the node; blackboard
// values of user types need a codec (RegisterCodec).
func (a *Agent) Snapshot() ([]byte, error) {
	if a.tree == nil {
		return nil, fmt.Errorf("snapshot of agent %d: %w", a.id, ErrNoTree)
	}
	if a.busy {
		return nil, fmt.Errorf("snapshot of agent %d: taken inside its tick", a.id)
	}
	w := &snapWriter{buf: make([]byte, 0, 64+len(a.st)+4*len(a.mem))}
	w.buf = append(w.buf, agentMagic...)
	w.uvarint(snapVersion)
	w.str(a.tree.Fingerprint())
	w.varint(a.bb.now)
	w.byte1(byte(a.status))
	w.boolean(!a.active()) // paused
	w.bytes(a.snapState())
	w.uvarint(uint64(len(a.mem)))
	for _, x := range a.mem {
		w.varint(x)
	}
	var obsSeq uint64
	if a.cold != nil {
		obsSeq = a.cold.obsSeq
	}
	w.uvarint(obsSeq)
	w.uvarint(uint64(len(a.obs)))
	for _, o := range a.obs {
		w.varint(int64(o.cond))
		w.varint(int64(o.at))
		w.varint(int64(o.branch))
		w.uvarint(o.seq)
		w.byte1(byte(o.mode))
		w.byte1(byte(o.result))
		w.boolean(o.waiting)
	}
	var umem []any
	if a.cold != nil {
		umem = a.cold.umem
	}
	w.uvarint(uint64(len(umem)))
	for i, m := range umem {
		bm, ok := m.(encoding.BinaryMarshaler)
		if _, canRestore := m.(encoding.BinaryUnmarshaler); !ok || !canRestore {
			// Checked here, not only by Restore: a snapshot that
			// cannot be restored is no snapshot.
			return nil, fmt.Errorf("snapshot of agent %d: %s: memory %T holds pointers%s and does not implement %s (implement both on %T, or keep only numbers, booleans and arrays and structs of them in it)",
				a.id, a.tree.umemNode(i), m, pointerField(reflect.TypeOf(m).Elem()), missingCodecMethods(ok, canRestore), m)
		}
		data, err := bm.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("snapshot of agent %d: %s: memory %T: %w", a.id, a.tree.umemNode(i), m, err)
		}
		w.bytes(data)
	}
	if err := writeTable(w, a.bb.local, func(j int) int32 { return a.bb.keys.ids[j] }); err != nil {
		return nil, fmt.Errorf("snapshot of agent %d: %w", a.id, err)
	}
	return w.buf, nil
}

// snapState returns the node state bytes to save: a's own, but for the
// nodes running only because they are forced (force.go), saved as idle.
func (a *Agent) snapState() []uint8 {
	if a.cold == nil || a.cold.forced == nil {
		return a.st
	}
	st := make([]uint8, len(a.st))
	for i, b := range a.st {
		if b&stForced != 0 {
			b &^= stRunning | stForced
		}
		st[i] = b
	}
	return st
}

// RestoreOption configures Restore.
type RestoreOption func(*restoreOptions)

type restoreOptions struct{ keepBlackboard bool }

// KeepBlackboard makes Restore accept a snapshot of another tree
// definition: the blackboard is restored and the tree starts afresh
// (without it, such a snapshot is an error wrapping ErrTreeMismatch).
func KeepBlackboard() RestoreOption { return func(o *restoreOptions) { o.keepBlackboard = true } }

// Restore loads a snapshot into the agent: its next ticks continue exactly
// where the snapshotted agent left off. Nodes the agent was running are
// halted first (their halt callbacks run, once each). Bad data is an
// error, never a panic; on error the agent is left as it was.
func (a *Agent) Restore(data []byte, opts ...RestoreOption) error {
	var o restoreOptions
	for _, f := range opts {
		f(&o)
	}
	if a.tree == nil {
		return fmt.Errorf("restore agent %d: %w", a.id, ErrNoTree)
	}
	if a.busy {
		return fmt.Errorf("restore agent %d: called inside its tick", a.id)
	}
	if len(data) > maxSnapshot {
		return fmt.Errorf("restore agent %d: snapshot of %d bytes is over the limit", a.id, len(data))
	}
	r := &snapReader{buf: data}
	if len(data) < len(agentMagic) || string(data[:len(agentMagic)]) != agentMagic {
		return fmt.Errorf("restore agent %d: not an agent snapshot", a.id)
	}
	r.buf = r.buf[len(agentMagic):]
	if v := r.uvarint(); r.err == nil && v != snapVersion {
		return fmt.Errorf("restore agent %d: snapshot version %d, this program reads %d", a.id, v, snapVersion)
	}
	fp := r.str()
	if r.err != nil {
		return fmt.Errorf("restore agent %d: %w", a.id, r.err)
	}
	t := a.tree
	same := fp == t.Fingerprint()
	if !same && !o.keepBlackboard {
		return fmt.Errorf("restore agent %d: %w (snapshot %s, tree %q is %s)", a.id, ErrTreeMismatch, fp, t.name, t.Fingerprint())
	}
	now := r.varint()
	status := Status(r.byte1())
	paused := r.boolean()
	st := r.bytes()
	nmem := r.count(maxSnapshot)
	mem := make([]int64, 0, min(nmem, len(r.buf)))
	for k := 0; k < nmem && r.err == nil; k++ {
		mem = append(mem, r.varint())
	}
	obsSeq := r.uvarint()
	nobs := r.count(maxSnapshot)
	var obs []observer
	for k := 0; k < nobs && r.err == nil; k++ {
		ob := observer{cond: int32(r.varint()), at: int32(r.varint()), branch: int32(r.varint()), seq: r.uvarint(),
			mode: Abort(r.byte1()), result: Status(r.byte1()), waiting: r.boolean()}
		obs = append(obs, ob)
	}
	numem := r.count(maxSnapshot)
	umemData := make([][]byte, 0, min(numem, len(r.buf)))
	for k := 0; k < numem && r.err == nil; k++ {
		umemData = append(umemData, r.bytes())
	}
	// The agent scope, laid out for the agent's tree.
	local := Blackboard{keys: t.keys, local: make([]slot, len(t.keys.ids))}
	readTable(r, false, func(id int32, s slot) { *local.localSlot(id) = s })
	if r.err == nil && len(r.buf) != 0 {
		r.fail("%d bytes of trailing data", len(r.buf))
	}
	if r.err != nil {
		return fmt.Errorf("restore agent %d: %w", a.id, r.err)
	}
	if same {
		if err := a.checkState(status, st, mem, obs, len(umemData)); err != nil {
			return fmt.Errorf("restore agent %d: %w", a.id, err)
		}
		// Decode user memories into fresh values, swapped in only when
		// all succeed: on error the agent is left as it was.
		var fresh []any
		if numem > 0 {
			fresh = make([]any, numem)
			for i := range t.nodes {
				if n := &t.nodes[i]; n.umemHeap {
					fresh[n.umem] = n.user.newMemory()
				}
			}
		}
		for k, d := range umemData {
			bu, ok := fresh[k].(encoding.BinaryUnmarshaler)
			if !ok {
				return fmt.Errorf("restore agent %d: %s: memory %T does not implement encoding.BinaryUnmarshaler", a.id, t.umemNode(k), fresh[k])
			}
			if err := bu.UnmarshalBinary(d); err != nil {
				return fmt.Errorf("restore agent %d: %s: memory %T: %w", a.id, t.umemNode(k), fresh[k], err)
			}
		}
		a.Halt() // what the agent was running ends: exactly-once halts
		if numem > 0 {
			a.cold.umem = fresh
		}
		copy(a.st, st)
		copy(a.mem, mem)
		a.setObs(append(a.obs[:0], obs...))
		if obsSeq != 0 || a.cold != nil {
			a.coldPart().obsSeq = obsSeq
		}
		a.status = status
		if a.flags &^= agActive; !paused {
			a.flags |= agActive
		}
	} else {
		a.Reset() // the tree starts afresh
	}
	if local.keys == a.bb.keys {
		// The tree's keys on both sides: the values go in the agent's
		// slots, which NewAgent allocated with the agent (agentLayout).
		copy(a.bb.local, local.local)
	} else {
		// The slots left behind (maybe in the agent's own allocation)
		// must not keep their values alive.
		clear(a.bb.local)
		a.bb.local, a.bb.keys = local.local, local.keys
	}
	a.bb.now = now
	return nil
}

// checkState validates decoded state against the agent's tree, so that a
// corrupt snapshot cannot make a later tick index out of range.
func (a *Agent) checkState(status Status, st []byte, mem []int64, obs []observer, numem int) error {
	t := a.tree
	switch {
	case status > Running:
		return fmt.Errorf("bad status %d", status)
	case len(st) != len(a.st):
		return fmt.Errorf("%d node states for a tree of %d nodes", len(st), len(a.st))
	case len(mem) != len(a.mem):
		return fmt.Errorf("%d memory words, the tree has %d", len(mem), len(a.mem))
	case len(obs) > t.observers:
		return fmt.Errorf("%d observers, the tree allows %d", len(obs), t.observers)
	case numem != t.userSlots:
		return fmt.Errorf("%d user memories, the tree has %d", numem, t.userSlots)
	}
	for _, b := range st {
		if b&^(stRunning|stKeptMask) != 0 {
			return fmt.Errorf("bad node state %#x", b)
		}
	}
	nodes := int32(len(t.nodes))
	for _, o := range obs {
		if o.cond < 0 || o.cond >= nodes || !t.nodes[o.cond].observe || o.at < 0 || o.at >= nodes ||
			!abortable(t.nodes[o.at].kind) || o.branch < 0 || int(o.branch) >= len(t.nodes[o.at].kids) ||
			o.mode > AbortBoth || o.result > Running {
			return fmt.Errorf("bad observer")
		}
	}
	// Composite child indexes must stay in range, stored results must be
	// results.
	for i := range t.nodes {
		n := &t.nodes[i]
		switch n.kind {
		case kRunOnce:
			if x := mem[n.mem]; x != 0 && x != int64(Success) && x != int64(Failure) {
				return fmt.Errorf("bad stored result %d", x)
			}
		case kSequence, kSequenceWithMemory, kSelector, kReactiveSequence, kReactiveSelector, kIfThenElse:
			// (IfThenElse: the branch entered, 0 while the condition runs.)
			for w := int32(0); w < n.actW+lifeWords(n.kind); w++ {
				if x := mem[n.mem+w]; x < 0 || x >= int64(len(n.kids)) {
					return fmt.Errorf("bad child index %d", x)
				}
			}
		case kRandomSelector, kRandomSequence:
			// The position and the order's child indexes (the state is
			// any word).
			if x := mem[n.mem]; x < 0 || x >= int64(len(n.kids)) {
				return fmt.Errorf("bad position %d", x)
			}
			for _, c := range mem[n.mem+1 : n.mem+n.actW] {
				if c < 0 || c >= int64(len(n.kids)) {
					return fmt.Errorf("bad child index %d", c)
				}
			}
		}
	}
	return nil
}

// lifeWords returns a kind's life-long memory words.
func lifeWords(k kind) int32 {
	_, life := memory(k)
	return life
}

// Snapshot writes the global scope and then every agent (its id, tree
// name and snapshot), streamed through w. Take it between ticks.
func (m *Manager) Snapshot(w io.Writer) error {
	m.lazyInit()
	bw := bufio.NewWriter(w)
	sw := &snapWriter{}
	sw.buf = append(sw.buf, managerMagic...)
	sw.uvarint(snapVersion)
	sw.uvarint(uint64(m.nextID))
	if err := writeTable(sw, m.globals.slots, func(i int) int32 { return int32(i) }); err != nil {
		return fmt.Errorf("snapshot manager: globals: %w", err)
	}
	sw.uvarint(uint64(len(m.agents)))
	if _, err := bw.Write(sw.buf); err != nil {
		return fmt.Errorf("snapshot manager: %w", err)
	}
	for _, a := range m.agents {
		data, err := a.Snapshot()
		if err != nil {
			return fmt.Errorf("snapshot manager: %w", err)
		}
		sw.buf = sw.buf[:0]
		sw.uvarint(uint64(a.id))
		sw.str(a.tree.name)
		sw.bytes(data)
		if _, err := bw.Write(sw.buf); err != nil {
			return fmt.Errorf("snapshot manager: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("snapshot manager: %w", err)
	}
	return nil
}

// Restore reads a manager snapshot into an empty manager (one with agents
// is an error): the global scope, then each agent, created on trees[its
// tree name] (Tree.Name, the document's main tree) with opts and its
// original id, and restored. A snapshot of another definition of a tree is
// an error wrapping ErrTreeMismatch (see RestoreKeepingBlackboards), and so
// is a tree name missing from trees. On error the manager is left as it
// was: without agents, with its global scope unchanged, and with the ids
// Add gives unchanged. Owners are not in snapshots:
// give each restored agent its own with Agent.SetOwner (by ID).
func (m *Manager) Restore(r io.Reader, trees map[string]*Tree, opts ...AgentOption) error {
	return m.restore(r, trees, nil, opts)
}

// RestoreKeepingBlackboards is Restore for changed tree definitions: agents
// whose tree changed keep their blackboards and start their tree afresh.
func (m *Manager) RestoreKeepingBlackboards(r io.Reader, trees map[string]*Tree, opts ...AgentOption) error {
	return m.restore(r, trees, []RestoreOption{KeepBlackboard()}, opts)
}

func (m *Manager) restore(r io.Reader, trees map[string]*Tree, ropts []RestoreOption, opts []AgentOption) error {
	m.lazyInit()
	if len(m.agents) != 0 {
		return fmt.Errorf("restore manager: the manager already has %d agents", len(m.agents))
	}
	br := bufio.NewReader(r)
	head := make([]byte, len(managerMagic))
	if _, err := io.ReadFull(br, head); err != nil || string(head) != managerMagic {
		return fmt.Errorf("restore manager: not a manager snapshot")
	}
	if v, err := binary.ReadUvarint(br); err != nil || v != snapVersion {
		return fmt.Errorf("restore manager: unsupported snapshot version")
	}
	// The globals table is length-prefixed entry by entry; read it through
	// a small streaming decoder.
	sr := &streamReader{r: br}
	nextID, err := sr.uvarint()
	if err != nil || nextID > math.MaxInt32 {
		return fmt.Errorf("restore manager: bad next agent id")
	}
	var globals []slot
	n, err := sr.uvarint()
	if err != nil {
		return fmt.Errorf("restore manager: globals: %w", err)
	}
	for k := uint64(0); k < n; k++ {
		name, s, err := sr.slot()
		if err != nil {
			return fmt.Errorf("restore manager: globals: %w", err)
		}
		if !isGlobalName(name) {
			return fmt.Errorf("restore manager: global key %q without @", name)
		}
		id := internKey(name)
		if int(id) >= len(globals) {
			globals = growSlots(globals, int(id)+1)
		}
		globals[id] = s
	}
	count, err := sr.uvarint()
	if err != nil {
		return fmt.Errorf("restore manager: %w", err)
	}
	// A failed restore leaves the manager as it found it: no agents, and
	// the ids that Add gives unchanged.
	prevID := m.nextID
	fail := func(err error) error {
		clear(m.agents)
		m.agents = m.agents[:0]
		m.nextID = prevID
		return err
	}
	last := -1
	for k := uint64(0); k < count; k++ {
		id, err1 := sr.uvarint()
		name, err2 := sr.string()
		data, err3 := sr.bytes()
		if err := errors.Join(err1, err2, err3); err != nil {
			return fail(fmt.Errorf("restore manager: agent %d: %w", k, err))
		}
		if int64(id) <= int64(last) || id >= nextID {
			return fail(fmt.Errorf("restore manager: agent ids out of order"))
		}
		last = int(id)
		t := trees[name]
		if t == nil {
			return fail(fmt.Errorf("restore manager: agent %d runs tree %q, which is not given", id, name))
		}
		a := m.Add(t, opts...)
		a.id = int(id)
		a.seedRandom() // for a restore that starts the tree afresh
		if err := a.Restore(data, ropts...); err != nil {
			return fail(fmt.Errorf("restore manager: %w", err))
		}
	}
	m.globals.slots = globals
	m.nextID = int(nextID)
	return nil
}

// streamReader decodes snapshot items from a stream.
type streamReader struct{ r *bufio.Reader }

func (s *streamReader) uvarint() (uint64, error) {
	x, err := binary.ReadUvarint(s.r)
	if err != nil {
		return 0, fmt.Errorf("truncated: %w", err)
	}
	return x, nil
}

func (s *streamReader) bytes() ([]byte, error) {
	n, err := s.uvarint()
	if err != nil {
		return nil, err
	}
	if n > maxSnapshot {
		return nil, fmt.Errorf("length %d out of range", n)
	}
	// Read before allocating: memory grows with the bytes actually there.
	b, err := io.ReadAll(io.LimitReader(s.r, int64(n)))
	if err != nil {
		return nil, err
	}
	if uint64(len(b)) != n {
		return nil, fmt.Errorf("truncated: %d of %d bytes", len(b), n)
	}
	return b, nil
}

func (s *streamReader) string() (string, error) {
	b, err := s.bytes()
	return string(b), err
}

// slot reads one blackboard entry: its encoding is self-delimiting, so the
// bytes are re-assembled and decoded by readSlot.
func (s *streamReader) slot() (string, slot, error) {
	var w snapWriter
	name, err := s.string()
	if err != nil {
		return "", slot{}, err
	}
	w.str(name)
	kind, err := s.r.ReadByte()
	if err != nil {
		return "", slot{}, err
	}
	ttl, err := s.r.ReadByte()
	if err != nil {
		return "", slot{}, err
	}
	w.byte1(kind)
	w.byte1(ttl)
	exp, err := binary.ReadVarint(s.r)
	if err != nil {
		return "", slot{}, err
	}
	w.varint(exp)
	switch Kind(kind) {
	case KindBool, KindNumber:
		x, err := s.uvarint()
		if err != nil {
			return "", slot{}, err
		}
		w.uvarint(x)
	case KindString:
		str, err := s.string()
		if err != nil {
			return "", slot{}, err
		}
		w.str(str)
	case KindOther:
		cname, err := s.string()
		if err != nil {
			return "", slot{}, err
		}
		data, err := s.bytes()
		if err != nil {
			return "", slot{}, err
		}
		w.str(cname)
		w.bytes(data)
	default:
		return "", slot{}, fmt.Errorf("bad kind %d", kind)
	}
	r := &snapReader{buf: w.buf}
	n, sl := readSlot(r)
	return n, sl, r.err
}

// umemNode describes the node whose user memory with pointers is slot k
// of an agent's (Agent.cold.umem), for error messages: "node 7
// (Guard.children[1], MoveTo)".
func (t *Tree) umemNode(k int) string {
	for i := range t.nodes {
		if n := &t.nodes[i]; n.umemHeap && int(n.umem) == k {
			return fmt.Sprintf("node %d (%s, %s)", i, t.meta[i].path, t.meta[i].typ)
		}
	}
	return fmt.Sprintf("user memory %d", k)
}

// pointerField names, for an error message, the first field of struct t
// that holds pointers (" (field target string)"): strings, slices and maps
// hold pointers too, which is not obvious. It is "" when t is not a struct.
func pointerField(t reflect.Type) string {
	if t.Kind() != reflect.Struct {
		return ""
	}
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); hasPointers(f.Type) {
			return fmt.Sprintf(" (field %s %s)", f.Name, f.Type)
		}
	}
	return ""
}

// missingCodecMethods names the methods of encoding.BinaryMarshaler and
// BinaryUnmarshaler a user memory type lacks.
func missingCodecMethods(marshal, unmarshal bool) string {
	switch {
	case !marshal && !unmarshal:
		return "encoding.BinaryMarshaler and BinaryUnmarshaler"
	case !marshal:
		return "encoding.BinaryMarshaler"
	}
	return "encoding.BinaryUnmarshaler"
}
