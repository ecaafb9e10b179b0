package arbor

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arborbt/arbor/internal/rawdoc"
	"github.com/arborbt/arbor/internal/suggest"
)

// CompileOptions bound what Compile accepts.
type CompileOptions struct {
	// MaxNodes bounds the node count after subtree inlining (default
	// 100,000).
	MaxNodes int
	// MaxDepth bounds the nesting of nodes within each tree of the
	// document, as the loaders do for files (default 256). It also stops
	// a Go-built definition whose nodes form a cycle.
	MaxDepth int
}

// DefaultMaxNodes is the default bound on nodes after subtree inlining.
const DefaultMaxNodes = 100_000

// proto is a validated definition node, before subtrees are inlined.
type proto struct {
	def     *Node
	t       *nodeType
	path    string   // document path, for load errors
	rel     string   // step from the parent: ".children[2]", ".child", ".guard"
	n       node     // compiled fields (kind, parameters)
	meta    nodeMeta // name, type, parameters as written
	subtree string
	kids    []*proto
	guard   *proto
}

// Compile validates a document against the registry and compiles its main
// tree (the other trees are validated too; those its SubTree nodes name
// are inlined). Every problem is reported, up to 100, as LoadErrors, each
// with the node's path, type and line. A nil registry knows only the
// built-in node types. The Tree keeps doc (Tree.Document): do not change
// doc afterwards. Compile only reads doc and reg, so trees may be compiled
// concurrently once registration is over.
func Compile(doc *Document, reg *Registry, opts ...CompileOptions) (*Tree, error) {
	var o CompileOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxNodeDepth
	}
	if reg == nil {
		reg = NewRegistry()
	}
	el := &errList{}
	if doc == nil || len(doc.Trees) == 0 {
		el.add("trees", "", 0, "the document has no trees")
		return nil, el.err()
	}
	main := doc.Main
	if main == "" {
		if len(doc.Trees) != 1 {
			el.add("main", "", 0, "the document has %d trees (%s) and no main tree: name one with main", len(doc.Trees), treeNames(doc))
			return nil, el.err()
		}
		for name := range doc.Trees {
			main = name
		}
	}
	if _, ok := doc.Trees[main]; !ok {
		el.add("main", "", 0, "main tree %q is not in the document (trees: %s)", main, strings.Join(doc.TreeNames(), ", "))
		return nil, el.err()
	}

	c := &compiler{reg: reg, doc: doc, el: el, protos: make(map[string]*proto), maxDepth: o.MaxDepth}
	for _, name := range treesInFileOrder(doc) {
		c.protos[name] = c.build(doc.Trees[name], "trees."+name, "", false, 1)
	}
	if el.err() != nil {
		return nil, el.err()
	}
	c.checkSubtrees(doc)
	if el.err() != nil {
		return nil, el.err()
	}
	if n := c.size(c.protos[main], map[string]int{}); n > o.MaxNodes {
		root := c.protos[main].def
		el.add("trees."+main, root.Type, root.Line, "the tree has %d nodes after subtree inlining, over the limit of %s", n, rawdoc.Count(o.MaxNodes))
		return nil, el.err()
	}
	t := &Tree{name: main, doc: doc, keys: &keyIndex{shared: true}}
	c.tree = t
	c.emit(c.protos[main], -1, -1, main, false)
	// Pointer-free user memory follows the node memory words.
	for i := range t.nodes {
		if n := &t.nodes[i]; n.umem >= 0 && !n.umemHeap {
			n.umem += int32(t.words)
		}
	}
	t.words += t.userWords
	for len(c.guards) > 0 {
		g := c.guards[0]
		c.guards = c.guards[1:]
		root := c.emit(g.p, -1, -1, t.meta[g.owner].path+".guard", true)
		t.nodes[g.owner].guard = root
	}
	for i := range t.nodes {
		n := &t.nodes[i]
		n.ends = n.actW > 0 || abortable(n.kind) || n.observe
		switch n.kind {
		case kLimiter, kRunOnce, kCooldown:
			// These count only a child that completes; they need to
			// tell a child skipped by its guard (doc.go), through
			// subtrees, which are as if inlined.
			for k := n.kids[0]; ; k = t.nodes[k].kids[0] {
				kid := &t.nodes[k]
				kid.markSkip = kid.guard >= 0
				if kid.kind != kSubTree {
					break
				}
			}
		}
	}
	t.linkKids()
	t.setLayout()
	return t, nil
}

// treesInFileOrder returns the names of doc's trees in the order of their
// root nodes' lines (a file's order), the trees without a line (built in
// Go) by name after them, so that load errors come in the order of the file.
func treesInFileOrder(doc *Document) []string {
	names := doc.TreeNames()
	line := func(name string) int {
		if n := doc.Trees[name]; n != nil && n.Line > 0 {
			return n.Line
		}
		return int(^uint(0) >> 1)
	}
	sort.SliceStable(names, func(i, j int) bool { return line(names[i]) < line(names[j]) })
	return names
}

type pendingGuard struct {
	p     *proto
	owner int32
}

type compiler struct {
	reg    *Registry
	doc    *Document
	el     *errList
	protos map[string]*proto
	tree   *Tree
	guards []pendingGuard
	// maxDepth bounds node nesting (CompileOptions.MaxDepth).
	maxDepth int
	// below holds the nodes of unknown type whose descendants were
	// checked (for their errors only).
	below map[*Node]bool
}

// guardTypes are the non-condition types a guard may contain.
func guardAllowed(k kind) bool {
	switch k {
	case kCheck, kSuccess, kFailure, kCondition,
		kInverter, kForceSuccess, kForceFailure,
		kSequence, kSelector, kReactiveSequence, kReactiveSelector:
		return true
	}
	return false
}

// build validates one definition node, at the given nesting depth, and
// its descendants.
func (c *compiler) build(def *Node, path, rel string, inGuard bool, depth int) *proto {
	if def == nil {
		c.el.add(path, "", 0, "missing node")
		return nil
	}
	if depth > c.maxDepth {
		c.el.addDef(path, def, "node nesting depth over the limit of %d (or the nodes form a cycle)", c.maxDepth)
		return nil
	}
	if def.Type == "" {
		c.el.add(path, "", def.Line, "missing node type")
		return nil
	}
	t, ok := c.reg.lookup(def.Type)
	if !ok {
		msg := fmt.Sprintf("unknown node type %q", def.Type)
		if s := suggest.Closest(def.Type, append(slices.Clip(c.doc.typeNames), c.reg.Types()...)); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		c.el.addDef(path, def, "%s", msg)
		// What is below it is still checked, so that one run reports
		// its mistakes too: once per definition (Go-built ones may share
		// nodes or form cycles), and as long as errors are wanted.
		if c.below == nil {
			c.below = map[*Node]bool{}
		}
		if c.below[def] || len(c.el.errs) >= maxLoadErrors {
			return nil
		}
		c.below[def] = true
		for i, ch := range def.Children {
			step := childStep(def, i)
			c.build(ch, path+step, step, inGuard, depth+1)
		}
		if def.Guard != nil {
			c.build(def.Guard, path+".guard", ".guard", true, depth+1)
		}
		return nil
	}
	if def.bad != "" {
		c.el.addDef(path, def, "%s", def.bad)
	}
	p := &proto{def: def, t: t, path: path, rel: rel}
	params := normalizeParams(def.Params)
	p.n = node{kind: t.kind, abort: def.Abort, guard: -1, umem: -1}
	p.meta = nodeMeta{typ: def.Type, name: def.Name, params: params}

	// Children.
	nk := len(def.Children)
	switch t.shape {
	case shapeComposite:
		if nk == 0 && !ownChildCount(t.kind) {
			c.el.addDef(path, def, "wrong number of children: a composite needs at least one child")
		}
	case shapeDecorator:
		if nk != 1 {
			c.el.addDef(path, def, "wrong number of children: has %d, a decorator needs exactly one child", nk)
		}
	case shapeLeaf:
		if nk != 0 {
			c.el.addDef(path, def, "wrong number of children: has %d, a leaf takes no children", nk)
		}
	case shapeSubTree:
		if nk != 0 {
			c.el.addDef(path, def, "wrong number of children: has %d, SubTree takes none (its child is the named tree)", nk)
		}
	}
	if def.Abort > AbortBoth {
		c.el.addDef(path, def, "abort %d is not an abort mode (none, self, lower or both)", int(def.Abort))
	} else if def.Abort != AbortNone || def.abortWritten {
		if !t.builtin || !abortable(t.kind) {
			c.el.addDef(path, def, "abort %q is only allowed on Sequence, SequenceWithMemory and Selector", def.Abort)
		}
	}
	if inGuard && !guardAllowed(t.kind) {
		c.el.addDef(path, def, "a guard may contain only conditions, Inverter, ForceSuccess, ForceFailure and Sequence, Selector, ReactiveSequence or ReactiveSelector; %s is not allowed in a guard", def.Type)
	}

	pr := &paramReader{def: def, params: params, path: path, typ: def.Type, el: c.el}
	c.params(p, pr, nk)

	for i, ch := range def.Children {
		step := childStep(def, i)
		if k := c.build(ch, path+step, step, inGuard, depth+1); k != nil {
			p.kids = append(p.kids, k)
		}
	}
	if def.Guard != nil {
		p.guard = c.build(def.Guard, path+".guard", ".guard", true, depth+1)
	}
	return p
}

// childStep is the path step to child i of def, as the file wrote it.
func childStep(def *Node, i int) string {
	if def.SingleChild && len(def.Children) == 1 {
		return ".child"
	}
	return fmt.Sprintf(".children[%d]", i)
}

// params compiles the parameters of a node of any kind.
func (c *compiler) params(p *proto, pr *paramReader, nk int) {
	n := &p.n
	t := p.t
	upTo := func(v int64) bool { return v == -1 || (v >= 1 && v <= int64(nk)) }
	upToRule := fmt.Sprintf("-1 for all, or 1 to %d, the number of children", nk)
	switch t.kind {
	case kParallel:
		n.a = pr.count("success", -1, false, upTo, upToRule)
		n.b = pr.count("failure", 0, false, func(v int64) bool { return v == 0 || upTo(v) },
			fmt.Sprintf("0 for automatic, -1 for all, or 1 to %d, the number of children", nk))
		n.flag = pr.boolean("retryFailed", false)
	case kParallelAll:
		n.a = pr.count("maxFailures", 1, false, upTo, upToRule)
	case kRandomSelector, kRandomSequence:
		c.randomParams(p, pr, nk)
	case kIfThenElse, kWhileDoElse:
		if nk != 2 && nk != 3 {
			pr.errf("", "wrong number of children: has %d, %s needs 2 or 3 (the condition, the child run when it succeeds, and optionally the one run when it fails)", nk, p.def.Type)
		}
	case kSwitch:
		c.switchParams(p, pr, nk)
	case kRepeat:
		n.a = pr.count("count", 0, true, func(v int64) bool { return v >= -1 }, "0 or -1 for forever, or ≥ 1")
	case kRetryUntilSuccessful:
		n.a = pr.count("attempts", 0, true, positiveOrForever, "-1 for forever, or ≥ 1")
	case kRepeatUntilFailure:
		n.a = pr.count("max", -1, false, positiveOrForever, "-1 for forever, or ≥ 1")
	case kLimiter:
		n.a = pr.count("max", 0, true, positiveOrForever, "-1 for no limit, or ≥ 1")
	case kTimeout, kDelay, kCooldown:
		n.a = pr.duration("ms", true)
	case kRunOnce:
		if s, ok := pr.str("then", false); ok {
			st, valid := ParseStatus(s)
			if !valid || st == Running {
				pr.errf("then", "want \"success\" or \"failure\", got %q", s)
			}
			n.a = int64(st)
		}
	case kSubTree:
		var ok bool
		if p.subtree, ok = pr.str("tree", true); ok {
			// Reported here rather than with the cycles, which need
			// every tree built: so that it comes with the other
			// errors of the document, in order.
			if _, found := c.doc.Trees[p.subtree]; !found {
				msg := fmt.Sprintf("SubTree names a missing tree %q", p.subtree)
				if s := suggest.Closest(p.subtree, c.doc.TreeNames()); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				pr.el.addDef(pr.path, p.def, "%s", msg)
			}
		}
	case kWaitTicks:
		hasT, hasM := pr.has("ticks"), pr.has("ms")
		switch {
		case hasT && hasM:
			pr.get("ticks")
			pr.get("ms")
			pr.errf("ticks", "Wait takes exactly one of ticks and ms, not both")
		case hasM:
			n.kind = kWaitMs
			n.a = pr.duration("ms", true)
		case hasT:
			n.a = pr.count("ticks", 0, true, func(v int64) bool { return v >= 0 }, "≥ 0")
		default:
			pr.errf("ticks", "missing parameter: Wait takes one of ticks and ms")
		}
	case kError:
		msg, _ := pr.str("message", false)
		if msg == "" {
			msg = "error node"
		}
		n.val = String(msg)
	case kCheck:
		c.checkParams(n, pr)
	case kSet:
		c.setParams(n, pr)
	case kCondition, kAction, kUserControl, kUserDecorator:
		n.user = t.user(pr)
	}
	if t.anyParams {
		for name := range pr.params {
			pr.get(name)
		}
	}
	pr.finish(t.params)
}

func positiveOrForever(v int64) bool { return v == -1 || v >= 1 }

func (c *compiler) keyParam(pr *paramReader) keyRef {
	name, ok := pr.str("key", true)
	if ok && name == "" {
		pr.errf("key", "empty key name")
	}
	if name == "@" {
		pr.errf("key", "\"@\" names no key: a global key is @ and its name (@alarm)")
	}
	if _, isRef := refKey(name); isRef {
		pr.errf("key", "%q: a key name cannot be a {key} reference (only value accepts one)", name)
	}
	return keyRef{id: internKey(name), global: isGlobalName(name)}
}

// valueParam reads a literal or "{key}" value parameter into n.
func (c *compiler) valueParam(n *node, raw any) {
	if s, ok := raw.(string); ok {
		if k, isRef := refKey(s); isRef {
			n.valRef = true
			n.valKey = keyRef{id: internKey(k), global: isGlobalName(k)}
			return
		}
	}
	n.val = ValueOf(raw)
}

func (c *compiler) checkParams(n *node, pr *paramReader) {
	n.key = c.keyParam(pr)
	opName, ok := pr.str("op", true)
	if ok {
		o, valid := ParseOp(opName)
		if !valid {
			pr.errf("op", "unknown operator %q (want ==, !=, <, <=, >, >=, exists or missing)", opName)
		}
		n.op = o
	}
	raw, hasVal := pr.get("value")
	if !ok {
		return
	}
	if n.op == OpExists || n.op == OpMissing {
		if hasVal {
			pr.errf("value", "operator %s takes no value", opName)
		}
		return
	}
	if !hasVal {
		pr.errf("value", "missing required parameter")
		return
	}
	if raw == nil {
		pr.errf("value", "null is not a value to compare with (use op exists or missing)")
		return
	}
	c.valueParam(n, raw)
	if n.op.Ordering() && !n.valRef && n.val.kind != KindNumber && n.val.kind != KindString {
		pr.errf("value", "operator %s needs a number or a string, got %s", opName, describe(raw))
	}
}

func (c *compiler) setParams(n *node, pr *paramReader) {
	n.key = c.keyParam(pr)
	raw, ok := pr.get("value")
	if !ok {
		pr.errf("value", "missing required parameter (null deletes the key)")
	} else {
		c.valueParam(n, raw)
	}
	if pr.has("ttlMs") {
		n.hasTTL = true
		n.a = pr.duration("ttlMs", true)
	}
}

// checkSubtrees reports cycles of subtrees that include themselves (build
// reports a SubTree naming a missing tree).
func (c *compiler) checkSubtrees(doc *Document) {
	const (
		unvisited = iota
		active
		done
	)
	state := map[string]int{}
	var visit func(name string, stack []string)
	var walk func(p *proto, stack []string)
	walk = func(p *proto, stack []string) {
		if p == nil {
			return
		}
		if p.n.kind == kSubTree {
			// A missing tree was reported by build.
			if _, ok := c.protos[p.subtree]; ok && state[p.subtree] == active {
				cycle := append(append([]string{}, stack[indexOf(stack, p.subtree):]...), p.subtree)
				c.el.addDef(p.path, p.def, "subtree cycle: %s", strings.Join(cycle, " → "))
			} else if ok {
				visit(p.subtree, stack)
			}
		}
		for _, k := range p.kids {
			walk(k, stack)
		}
		walk(p.guard, stack)
	}
	visit = func(name string, stack []string) {
		if state[name] != unvisited {
			return
		}
		state[name] = active
		walk(c.protos[name], append(stack, name))
		state[name] = done
	}
	names := doc.TreeNames()
	sort.Strings(names)
	for _, name := range names {
		visit(name, nil)
	}
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return 0
}

// size counts the nodes of p after inlining, memoised per tree, saturating
// well above any limit so that exponential inlining cannot overflow.
func (c *compiler) size(p *proto, memo map[string]int) int {
	if p == nil {
		return 0
	}
	n := 1
	if p.n.kind == kSubTree {
		s, ok := memo[p.subtree]
		if !ok {
			s = c.size(c.protos[p.subtree], memo)
			memo[p.subtree] = s
		}
		n += s
	}
	for _, k := range p.kids {
		n += c.size(k, memo)
	}
	n += c.size(p.guard, memo)
	if n > 1<<30 {
		n = 1 << 30
	}
	return n
}

// memory returns the activation and life-long memory words of a kind.
func memory(k kind) (act, life int32) {
	switch k {
	case kSequence, kSelector, kReactiveSequence, kReactiveSelector,
		kRepeat, kRetryUntilSuccessful, kRepeatUntilFailure, kTimeout, kWaitTicks, kWaitMs, kIfThenElse:
		return 1, 0
	case kSequenceWithMemory:
		return 1, 1
	case kParallel, kParallelAll, kDelay:
		return 2, 0
	case kCooldown:
		return 0, 2
	case kLimiter, kRunOnce:
		return 0, 1
	}
	return 0, 0
}

// emit appends p (and, recursively, its descendants, inlining subtrees) to
// the flat node array in pre-order.
func (c *compiler) emit(p *proto, parent, comp int32, path string, inGuard bool) int32 {
	t := c.tree
	i := int32(len(t.nodes))
	n := p.n
	n.comp = comp
	meta := p.meta
	meta.parent, meta.path = parent, path
	if n.user != nil {
		n.tickFn = n.user.tickFunc()
		n.bareFn = n.user.bareFunc()
	}
	if !inGuard {
		act, life := memory(n.kind)
		if isRandomKind(n.kind) {
			act, life = randomWords(len(p.kids))
			t.random = append(t.random, i)
		}
		n.mem, n.actW = int32(t.words), act
		t.words += int(act + life)
		if n.user != nil {
			n.cb = n.user.callbacks()
			n.keepMem = n.user.keepMemory()
			switch words, ptrs := n.user.memory(); {
			case words == 0:
			case ptrs:
				n.umem, n.umemHeap = int32(t.userSlots), true
				t.userSlots++
			default:
				n.umem, n.umemW = int32(t.userWords), int32(words)
				t.userWords += words
			}
			if n.cb&hasAwake != 0 {
				t.awake = append(t.awake, i)
			}
		}
	}
	n.slot = -1
	if (n.kind == kCheck || n.kind == kSet || n.kind == kSwitch) && !n.key.global {
		n.slot = t.keys.add(n.key.id)
	}
	if n.valRef && !n.valKey.global {
		t.keys.add(n.valKey.id)
	}
	if n.user != nil {
		// Keys a user node's parameters name ("{key}"): agents often
		// write them, so they get slots of the tree too.
		for _, name := range sortedParamNames(meta.params) {
			if s, ok := meta.params[name].(string); ok {
				if k, isRef := refKey(s); isRef && !isGlobalName(k) {
					t.keys.add(internKey(k))
				}
			}
		}
	}
	t.nodes = append(t.nodes, n)
	t.meta = append(t.meta, meta)

	childComp := comp
	if c.tree.isComposite(i) {
		childComp = i
	}
	var kids []int32
	if p.n.kind == kSubTree {
		kids = append(kids, c.emit(c.protos[p.subtree], i, childComp, path+">"+p.subtree, inGuard))
	}
	for _, k := range p.kids {
		kids = append(kids, c.emit(k, i, childComp, path+k.rel, inGuard))
	}
	nd := &t.nodes[i]
	nd.kids = kids
	nd.end = int32(len(t.nodes))
	if !inGuard && nd.comp >= 0 && isConditionKind(nd.kind) && t.nodes[nd.comp].abort != AbortNone {
		nd.observe = true
		t.observers++
	}
	if p.guard != nil {
		c.guards = append(c.guards, pendingGuard{p: p.guard, owner: i})
	}
	nd.plainCond = nd.kind == kCheck && p.guard == nil && !nd.observe && !inGuard
	nd.scalarLit = nd.kind == kCheck && !nd.valRef &&
		(nd.val.kind == KindNumber || (nd.val.kind == KindBool && !nd.op.Ordering()))
	if !inGuard {
		t.compileLeads(i, p.guard != nil)
	}
	return i
}

// treeNames lists a document's tree names, sorted and quoted.
func treeNames(doc *Document) string {
	names := make([]string, 0, len(doc.Trees))
	for name := range doc.Trees {
		names = append(names, strconv.Quote(name))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func isConditionKind(k kind) bool {
	switch k {
	case kCheck, kSuccess, kFailure, kCondition:
		return true
	}
	return false
}

// normalizeParams converts parameter values to the raw types of files:
// every Go number becomes a float64, recursively through lists and maps.
func normalizeParams(in map[string]any) map[string]any {
	if in == nil {
		return nil
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = normalizeValue(v)
	}
	return out
}

func normalizeValue(v any) any {
	switch t := v.(type) {
	case nil, bool, string, float64:
		return v
	case time.Duration:
		// Durations in parameters are milliseconds, as in files.
		return float64(t) / float64(time.Millisecond)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalizeValue(e)
		}
		return out
	case map[string]any:
		return normalizeParams(t)
	}
	if x := ValueOf(v); x.kind == KindNumber {
		return x.num
	}
	return v
}

// sortedParamNames returns the names of params, sorted.
func sortedParamNames(params map[string]any) []string {
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
