package arbor

import "sync"

// Tree is a compiled, immutable tree definition. Any number of agents share
// one Tree; all run-time state lives in the Agent.
//
// Nodes are stored flat, in pre-order (index 0 is the root), so that "is
// under" is an index range test and per-agent state is arrays indexed by
// node number. Guard nodes follow the main tree's nodes.
type Tree struct {
	name      string
	doc       *Document
	nodes     []node
	rootWalk  *node      // the root, when it is a sequence or selector without guard: walk ticks it (linkKids); else nil
	meta      []nodeMeta // parallel to nodes
	words     int        // per-agent memory words (int64)
	userWords int        // per-agent arena words of pointer-free user memory
	userSlots int        // per-agent heap user-memory slots (user memory with pointers)
	keys      *keyIndex  // the agent-scope blackboard keys the tree mentions
	observers int        // condition leaves that can become observers
	awake     []int32
	random    []int32     // the random composites (their generators are seeded per agent)
	layout    agentLayout // a new agent's one allocation (NewAgent)
	fpOnce    sync.Once
	fp        string // Fingerprint
}

// node is one compiled node. Hot fields first.
type node struct {
	kind    kind
	abort   Abort
	observe bool // a condition leaf whose nearest composite has an abort
	// plainCond: a Check without guard or observer, evaluated without the
	// tick bookkeeping when no tracer is set.
	plainCond bool
	// scalarLit: a Check against a number literal, or a boolean literal
	// with == or != (compared without building Values).
	scalarLit bool
	// leadStop: for a composite without guard whose first children are
	// plain Checks (leads), the result of one of
	// them that decides the composite at once (Failure for sequences,
	// Success for selectors); Invalid otherwise. An idle composite so
	// decided needs no bookkeeping (see lead.go).
	leadStop Status
	flag     bool        // Parallel retryFailed
	ends     bool        // its end needs ended: activation words, observers, or it observes
	op       Op          // Check operator
	cb       callbackSet // the user node's optional callbacks
	umemHeap bool
	keepMem  bool
	// plainHalt: an action whose halt is clearing its running bit and
	// its one memory word (no Halt callback, M of one word, not kept),
	// which haltRunning does for a composite's child in its own frame.
	plainHalt bool
	// results: how many results a user tick may return, from Success on:
	// 3 (Success, Failure, Running), 2 for a condition (linkKids).
	results uint8
	valRef  bool
	hasTTL  bool
	// markSkip: the guarded child of a Limiter, RunOnce or Cooldown; a
	// false guard sets stSkipped, which the parent reads and clears.
	markSkip bool
	guard    int32       // index of the guard's root, or -1
	mem      int32       // first word in the agent's memory
	actW     int32       // number of activation words at mem (cleared on end/halt)
	umem     int32       // user memory: word offset in mem, or heap slot (umemHeap), or -1
	umemW    int32       // user memory words in mem
	comp     int32       // nearest composite ancestor (decorators and subtrees transparent), or -1
	end      int32       // one past the last node of this node's subtree (pre-order)
	leads    []leadCheck // leading plain Checks (lead.go)
	cont     Status      // sequences: Success, selectors: Failure (the result that goes on)
	loop     uint8       // a sequence's or selector's loop: loopPlain, loopReactive, loopMemory (plan.go)
	kids     []int32
	kr       []kidRef // the children, for the loops of sequences and selectors
	// A sequence or selector without guard that is a child of another
	// (kidComp), or a plain user node child of one (kidAct, kidBare): its
	// parent and its place among the parent's children, for walk and
	// resumeTick (plan.go); at: its own index.
	up     *node
	pos    int32
	at     int32
	a, b   int64 // integer parameters (counts, thresholds, durations in ns)
	key    keyRef
	slot   int32  // an agent-scope key's blackboard slot (the tree's keys come first), or -1
	valKey keyRef // Check/Set "{key}" reference
	val    Value  // Check/Set literal
	user   userNode
	tickFn tickFunc // user.tickFunc()
	bareFn bareFunc // user.bareFunc()
}

// nodeMeta is what tools and error reports need of a node, kept apart
// from the hot node array.
type nodeMeta struct {
	parent int32
	typ    string // type name as written
	name   string
	path   string
	params map[string]any
	// weights: a random composite's integer weights (nil: all equal),
	// read when an activation draws its order.
	weights []uint64
	// cases: a Switch's case values, in order.
	cases []Value
}

// keyRef is a compiled blackboard key.
type keyRef struct {
	id     int32
	global bool
}

func (t *Tree) isComposite(i int32) bool {
	switch t.nodes[i].kind {
	case kSequence, kSequenceWithMemory, kReactiveSequence, kSelector, kReactiveSelector, kParallel, kParallelAll, kUserControl,
		kRandomSelector, kRandomSequence, kIfThenElse, kWhileDoElse, kSwitch:
		return true
	}
	return false
}

// Name returns the name of the tree that runs (the document's main tree).
func (t *Tree) Name() string { return t.name }

// Document returns the definition the tree was compiled from. It is
// shared: read it, or edit a Clone.
func (t *Tree) Document() *Document { return t.doc }

// Len returns the number of nodes, subtrees inlined, guards included.
func (t *Tree) Len() int { return len(t.nodes) }

// NodeInfo describes one compiled node, for tools (debugger, traces).
type NodeInfo struct {
	ID       int            // index in the tree, pre-order from the root
	Type     string         // node type as written (aliases kept)
	Name     string         // display name ("" when none)
	Path     string         // path from the main root through inlined subtrees
	Parent   int            // -1 for the root and for guard roots
	Children []int          // child ids
	Guard    int            // guard root id or -1
	GuardOf  int            // for a guard's root: the guarded node; else -1
	Abort    Abort          // conditional-abort mode
	Params   map[string]any // parameters as written (the tree's own map: do not modify it)
	// Condition: a condition leaf (Check, Success, Failure or a program's
	// condition), which never runs over ticks (Agent.Force refuses
	// Running for it).
	Condition bool
}

// Label returns the node's name, or its type when it has none.
func (n NodeInfo) Label() string {
	if n.Name != "" {
		return n.Name
	}
	return n.Type
}

// Node returns a description of node id; for an id that is not a node of
// the tree (see Len), the zero NodeInfo with ID -1.
func (t *Tree) Node(id int) NodeInfo {
	if uint(id) >= uint(len(t.nodes)) {
		return NodeInfo{ID: -1, Parent: -1, Guard: -1, GuardOf: -1}
	}
	n, m := &t.nodes[id], &t.meta[id]
	info := NodeInfo{ID: id, Type: m.typ, Name: m.name, Path: m.path, Parent: int(m.parent),
		Guard: int(n.guard), GuardOf: -1, Abort: n.abort, Params: m.params, Condition: isConditionKind(n.kind)}
	for _, k := range n.kids {
		info.Children = append(info.Children, int(k))
	}
	if m.parent < 0 && id != 0 {
		for j := range t.nodes {
			if int(t.nodes[j].guard) == id {
				info.GuardOf = j
			}
		}
	}
	return info
}

// label returns a node's display label.
func (n *nodeMeta) label() string {
	if n.name != "" {
		return n.name
	}
	return n.typ
}
