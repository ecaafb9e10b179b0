package arbor

import (
	"fmt"
	"sort"
	"time"
)

// Abort is a composite's conditional-abort mode (semantics §7).
type Abort uint8

// The abort modes. Only Sequence, SequenceWithMemory and Selector accept
// one other than AbortNone.
const (
	AbortNone Abort = iota
	AbortSelf
	AbortLower
	AbortBoth
)

// String returns "none", "self", "lower" or "both".
func (a Abort) String() string {
	switch a {
	case AbortSelf:
		return "self"
	case AbortLower:
		return "lower"
	case AbortBoth:
		return "both"
	}
	return "none"
}

// ParseAbort parses an abort mode as written in tree files.
func ParseAbort(s string) (Abort, bool) {
	switch s {
	case "none", "":
		return AbortNone, true
	case "self":
		return AbortSelf, true
	case "lower":
		return AbortLower, true
	case "both":
		return AbortBoth, true
	}
	return AbortNone, false
}

// Node is one node of a tree definition: what the loaders produce and the
// builder functions make. A definition is plain data; Compile validates it
// and turns it into a Tree.
type Node struct {
	Type     string         // node type, built-in or registered
	Name     string         // display label; optional
	Params   map[string]any // parameters (JSON-like values: nil, bool, float64, string, []any, map[string]any, or Go numbers; a time.Duration is taken as milliseconds, the unit of files)
	Children []*Node        // children of composites and decorators
	Guard    *Node          // optional precondition
	Abort    Abort          // conditional abort mode (Sequence, SequenceWithMemory, Selector)

	// Line is the source line of the node when it was loaded from a file
	// (0 otherwise); errors mention it.
	Line int
	// SingleChild records that a file wrote the child as "child" rather
	// than "children"; it only changes how error paths are spelled.
	SingleChild bool

	// bad is a mistake in a builder call (Leaf's parameter list), reported
	// by Compile.
	bad string
	// abortWritten records that a native file gave the node an "abort"
	// key, "none" included: on a type without aborts that is a load error
	// (format.md), which Abort alone cannot tell.
	abortWritten bool
	// src is what a file in another format wrote for the node, when an
	// importer mapped it (internal/nodesrc): errors about its parameters
	// name the file's names too.
	src *nodeSource
}

// nodeSource is a node's type and parameter names as a file in another
// format wrote them.
type nodeSource struct {
	typ    string            // the file's node type (Behavior3 Repeater, BT.CPP Sleep)
	params map[string]string // Arbor parameter → the file's name for it
}

// Document is a set of named trees, one of which (Main) runs. SubTree nodes
// refer to the others by name.
type Document struct {
	Main  string           // the tree that runs (may be empty when there is one tree)
	Trees map[string]*Node // the trees by name

	// Categories holds what a source file declared its program node types
	// to be: a Behavior3 file's custom_nodes, a BT.CPP file's
	// TreeNodesModel or <Condition ID="..."> spelling. The exporters use it
	// (after a registry's, when given one), so that converting a file from
	// one editor's format to another's keeps conditions conditions.
	// Compile ignores it: the registry decides what a type is. May be nil;
	// the native format does not carry it.
	Categories map[string]Category

	// typeNames are the node types a file's format knows by name, which
	// an importer recorded (internal/nodesrc): Compile suggests them, before
	// the registry's, for a misspelt type.
	typeNames []string
}

// Clone returns a deep copy of the document: its nodes, their parameter
// maps and the lists and objects in them, and Categories, so that the copy
// can be edited without touching d (a Tree's Document is shared by every
// agent and tool that reads it). A node reached twice in d (a document
// built in Go may share one) is copied once, and shared alike in the copy.
func (d *Document) Clone() *Document {
	if d == nil {
		return nil
	}
	out := &Document{Main: d.Main, Trees: make(map[string]*Node, len(d.Trees)), typeNames: d.typeNames}
	if d.Categories != nil {
		out.Categories = make(map[string]Category, len(d.Categories))
		for k, c := range d.Categories {
			out.Categories[k] = c
		}
	}
	seen := map[*Node]*Node{}
	var cp func(n *Node) *Node
	cp = func(n *Node) *Node {
		if n == nil {
			return nil
		}
		if c, ok := seen[n]; ok {
			return c
		}
		c := new(Node)
		seen[n] = c
		*c = *n // with what a file wrote of it (src, abortWritten)
		if n.Params != nil {
			c.Params = make(map[string]any, len(n.Params))
			for k, v := range n.Params {
				c.Params[k] = cloneRaw(v)
			}
		}
		if n.Children != nil {
			c.Children = make([]*Node, len(n.Children))
			for i, k := range n.Children {
				c.Children[i] = cp(k)
			}
		}
		c.Guard = cp(n.Guard)
		return c
	}
	for name, root := range d.Trees {
		out.Trees[name] = cp(root)
	}
	return out
}

// TreeNames returns the names of the document's trees, sorted.
func (d *Document) TreeNames() []string {
	names := make([]string, 0, len(d.Trees))
	for n := range d.Trees {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Named sets the node's display name and returns the node.
func (n *Node) Named(name string) *Node { n.Name = name; return n }

// WithGuard sets the node's guard (a condition) and returns the node.
func (n *Node) WithGuard(g *Node) *Node { n.Guard = g; return n }

// WithAbort sets the node's conditional-abort mode and returns the node.
func (n *Node) WithAbort(a Abort) *Node { n.Abort = a; return n }

// With sets a parameter and returns the node.
func (n *Node) With(param string, value any) *Node {
	if n.Params == nil {
		n.Params = make(map[string]any)
	}
	n.Params[param] = value
	return n
}

// Leaf returns a leaf node of the given type (built-in or registered) with
// parameters given as name, value pairs: Leaf("MoveTo", "target", "A"). A
// name that is not a string, or a name without a value, is an error that
// Compile reports. Durations may be given as time.Duration values: they are
// taken as milliseconds, the unit of files.
func Leaf(typ string, params ...any) *Node {
	n := &Node{Type: typ}
	for i := 0; i+1 < len(params); i += 2 {
		name, ok := params[i].(string)
		if !ok {
			n.bad = fmt.Sprintf("builder parameters: name %v (%T) is not a string", params[i], params[i])
			name = fmt.Sprint(params[i])
		}
		n.With(name, params[i+1])
	}
	if len(params)%2 == 1 {
		n.bad = fmt.Sprintf("builder parameters: %v has no value (parameters go in name, value pairs)", params[len(params)-1])
	}
	return n
}

// Branch returns a node of a registered control or decorator type (see
// RegisterControl) with the given children; set parameters with With:
// Branch("UtilitySelector", a, b).With("threshold", 7).
func Branch(typ string, children ...*Node) *Node { return composite(typ, children) }

func composite(typ string, children []*Node) *Node {
	return &Node{Type: typ, Children: children}
}

func decorator(typ string, child *Node, params ...any) *Node {
	n := Leaf(typ, params...)
	n.Children = []*Node{child}
	n.SingleChild = true
	return n
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Sequence ticks its children in order until one fails or runs.
func Sequence(children ...*Node) *Node { return composite("Sequence", children) }

// SequenceWithMemory is a Sequence that resumes at the child that failed.
func SequenceWithMemory(children ...*Node) *Node {
	return composite("SequenceWithMemory", children)
}

// ReactiveSequence re-checks its children from the first on every tick.
func ReactiveSequence(children ...*Node) *Node { return composite("ReactiveSequence", children) }

// Selector ticks its children in order until one succeeds or runs.
func Selector(children ...*Node) *Node { return composite("Selector", children) }

// ReactiveSelector re-checks its children from the first (the highest
// priority) on every tick.
func ReactiveSelector(children ...*Node) *Node { return composite("ReactiveSelector", children) }

// RandomSelector is a Selector over an order of its children drawn at
// random when each activation starts (see the package documentation,
// Random composites). Set its parameters with With: "weights" (one number
// ≥ 0 per child, in a list such as []any{3, 1} or []float64{3, 1}) and
// "seed" (an integer).
func RandomSelector(children ...*Node) *Node { return composite("RandomSelector", children) }

// RandomSequence is a Sequence over an order of its children drawn at
// random when each activation starts; parameters as for RandomSelector.
func RandomSequence(children ...*Node) *Node { return composite("RandomSequence", children) }

// IfThenElse ticks cond until it succeeds or fails, then then (on
// success) or the optional otherwise (on failure; without it the node
// fails), which it keeps ticking, without cond, until it ends; its result
// is the node's (see the package documentation, Branching composites).
// More than one otherwise is a load error that Compile reports.
func IfThenElse(cond, then *Node, otherwise ...*Node) *Node {
	return composite("IfThenElse", append([]*Node{cond, then}, otherwise...))
}

// WhileDoElse is the reactive IfThenElse: it ticks cond on every tick,
// then do (on success) or the optional otherwise (on failure; without it
// the node fails), halting the other one if it was running; while cond
// runs, it halts both and runs.
func WhileDoElse(cond, do *Node, otherwise ...*Node) *Node {
	return composite("WhileDoElse", append([]*Node{cond, do}, otherwise...))
}

// Switch ticks, on every tick, the child of the first case equal to the
// blackboard value of key (as Check's ==), or the last child, the default,
// when none is (or the key is missing), halting the child that was
// running if it is another one. children are one child per case, in the
// order of cases, then the default: Switch("mode", []any{"idle",
// "alert"}, idle, alert, otherwise). Cases are numbers, strings or
// booleans.
func Switch(key string, cases []any, children ...*Node) *Node {
	return composite("Switch", children).With("key", key).With("cases", cases)
}

// Parallel ticks all its children; success and failure are the thresholds
// of semantics §3 (-1 = all children; failure 0 = automatic).
func Parallel(success, failure int, children ...*Node) *Node {
	return composite("Parallel", children).With("success", success).With("failure", failure)
}

// ParallelAll ticks all children to completion and fails when at least
// maxFailures of them failed (-1 = all).
func ParallelAll(maxFailures int, children ...*Node) *Node {
	return composite("ParallelAll", children).With("maxFailures", maxFailures)
}

// Inverter swaps success and failure.
func Inverter(child *Node) *Node { return decorator("Inverter", child) }

// ForceSuccess turns failure into success.
func ForceSuccess(child *Node) *Node { return decorator("ForceSuccess", child) }

// ForceFailure turns success into failure.
func ForceFailure(child *Node) *Node { return decorator("ForceFailure", child) }

// Repeat runs its child count times, one iteration per tick (0 or -1 =
// forever).
func Repeat(count int, child *Node) *Node { return decorator("Repeat", child, "count", count) }

// RetryUntilSuccessful ticks its child again, one attempt per tick, while
// it fails: it succeeds when the child succeeds, and fails after attempts
// failed attempts, the first included (-1 = forever).
func RetryUntilSuccessful(attempts int, child *Node) *Node {
	return decorator("RetryUntilSuccessful", child, "attempts", attempts)
}

// RepeatUntilFailure repeats its child until it fails (then succeeds), at
// most max times (-1 = forever; then fails).
func RepeatUntilFailure(max int, child *Node) *Node {
	return decorator("RepeatUntilFailure", child, "max", max)
}

// Timeout fails and halts its child when it runs for d or longer.
func Timeout(d time.Duration, child *Node) *Node {
	return decorator("Timeout", child, "ms", ms(d))
}

// Delay waits d before ticking its child.
func Delay(d time.Duration, child *Node) *Node { return decorator("Delay", child, "ms", ms(d)) }

// Cooldown fails without ticking its child for d after the child ended or
// was halted.
func Cooldown(d time.Duration, child *Node) *Node {
	return decorator("Cooldown", child, "ms", ms(d))
}

// Limiter lets its child complete at most max times over the agent's life.
func Limiter(max int, child *Node) *Node { return decorator("Limiter", child, "max", max) }

// RunOnce runs its child to completion once, then returns that result
// (RunOnceThen: a fixed one).
func RunOnce(child *Node) *Node { return decorator("RunOnce", child) }

// RunOnceThen runs its child to completion once; from then on it returns
// then (Success or Failure) without ticking the child.
func RunOnceThen(then Status, child *Node) *Node {
	return decorator("RunOnce", child, "then", then.String())
}

// SubTree runs the named tree of the same document as its child.
func SubTree(tree string) *Node { return Leaf("SubTree", "tree", tree) }

// AlwaysSuccess is the Success leaf.
func AlwaysSuccess() *Node { return Leaf("Success") }

// AlwaysFailure is the Failure leaf.
func AlwaysFailure() *Node { return Leaf("Failure") }

// AlwaysRunning is the Running leaf.
func AlwaysRunning() *Node { return Leaf("Running") }

// WaitTicks is running on its first n ticks and succeeds on the next.
func WaitTicks(n int) *Node { return Leaf("Wait", "ticks", n) }

// WaitFor is running until d has passed since it started.
func WaitFor(d time.Duration) *Node { return Leaf("Wait", "ms", ms(d)) }

// Check compares a blackboard value: op is one of == != < <= > >= exists
// missing (no value for the last two). value is a literal or "{key}" to
// compare with another key. A missing or expired key fails every op but
// missing, != included ("alarm != true" fails until alarm is set): write
// the key before the first tick, or test it with exists or missing. An
// unknown op, a value missing or given where it should not be, or more
// than one value, is a load error that Compile reports.
func Check(key, op string, value ...any) *Node {
	n := Leaf("Check", "key", key, "op", op)
	if len(value) > 0 {
		n.With("value", value[0])
	}
	if len(value) > 1 {
		n.bad = fmt.Sprintf("builder parameters: Check takes one value, got %d (a list to compare with is one value: []any{...})", len(value))
	}
	return n
}

// Set writes a blackboard value and succeeds.
func Set(key string, value any) *Node { return Leaf("Set", "key", key, "value", value) }

// SetFor writes a blackboard value that expires after ttl, and succeeds.
func SetFor(key string, value any, ttl time.Duration) *Node {
	return Set(key, value).With("ttlMs", ms(ttl))
}
