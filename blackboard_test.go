package arbor_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// bbCompile compiles a one-tree document built with the builder API, using
// the built-in node types only.
func bbCompile(t *testing.T, root *arbor.Node) *arbor.Tree {
	t.Helper()
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": root}}, nil)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return tree
}

// bbAgent returns an agent running a trivial tree (a single Success leaf);
// its ticks only move the clock.
func bbAgent(t *testing.T, opts ...arbor.AgentOption) *arbor.Agent {
	t.Helper()
	return arbor.NewAgent(bbCompile(t, arbor.AlwaysSuccess()), opts...)
}

// bbPoint is a user type stored as is on the blackboard.
type bbPoint struct{ X, Y int }

func TestBlackboardScopes(t *testing.T) {
	t.Run("agent keys are private to each agent", func(t *testing.T) {
		g := arbor.NewGlobals()
		a := bbAgent(t, arbor.WithGlobals(g))
		b := bbAgent(t, arbor.WithGlobals(g))
		a.Blackboard().Set("hp", 10)
		if _, ok := b.Blackboard().Lookup("hp"); ok {
			t.Fatalf("agent b sees agent a's key hp")
		}
		if v, ok := a.Blackboard().Lookup("hp"); !ok || !v.Equal(arbor.Number(10)) {
			t.Fatalf("agent a reads hp = %v, %v; want 10", v, ok)
		}
	})
	t.Run("standalone agents have separate global scopes", func(t *testing.T) {
		a := bbAgent(t)
		b := bbAgent(t)
		a.Blackboard().Set("@alarm", true)
		if _, ok := b.Blackboard().Lookup("@alarm"); ok {
			t.Fatalf("a standalone agent sees another standalone agent's global key")
		}
		if a.Blackboard().Globals() == b.Blackboard().Globals() {
			t.Fatalf("two standalone agents share one Globals")
		}
	})
	t.Run("WithGlobals shares the global scope", func(t *testing.T) {
		g := arbor.NewGlobals()
		a := bbAgent(t, arbor.WithGlobals(g))
		b := bbAgent(t, arbor.WithGlobals(g))
		if a.Blackboard().Globals() != g {
			t.Fatalf("Globals() does not return the scope given to WithGlobals")
		}
		alarm := arbor.NewKey[bool]("@alarm")
		alarm.Set(a.Blackboard(), true)
		got, err := alarm.Get(b.Blackboard())
		if err != nil || !got {
			t.Fatalf("agent b reads @alarm = %v, %v; want true", got, err)
		}
		alarm.Delete(b.Blackboard())
		if alarm.Has(a.Blackboard()) {
			t.Fatalf("a delete by agent b is not seen by agent a")
		}
	})
	t.Run("a global key and an agent key of the same base name are distinct", func(t *testing.T) {
		a := bbAgent(t)
		bb := a.Blackboard()
		bb.Set("x", 1)
		bb.Set("@x", 2)
		if v := bb.Value("x"); !v.Equal(arbor.Number(1)) {
			t.Fatalf("x = %v, want 1", v)
		}
		if v := bb.Value("@x"); !v.Equal(arbor.Number(2)) {
			t.Fatalf("@x = %v, want 2", v)
		}
	})
	t.Run("a Set node writes the shared global scope that another agent's Check reads", func(t *testing.T) {
		g := arbor.NewGlobals()
		writer := arbor.NewAgent(bbCompile(t, arbor.Set("@score", 7)), arbor.WithGlobals(g))
		reader := arbor.NewAgent(bbCompile(t, arbor.Check("@score", "==", 7)), arbor.WithGlobals(g))
		lonely := arbor.NewAgent(bbCompile(t, arbor.Check("@score", "==", 7)))
		if s := reader.Tick(0); s != arbor.Failure {
			t.Fatalf("reader before the write: %v, want failure", s)
		}
		if s := writer.Tick(0); s != arbor.Success {
			t.Fatalf("writer: %v, want success", s)
		}
		if s := reader.Tick(time.Millisecond); s != arbor.Success {
			t.Fatalf("reader after the write: %v, want success", s)
		}
		if s := lonely.Tick(time.Millisecond); s != arbor.Failure {
			t.Fatalf("an agent with its own globals sees the write: %v", s)
		}
	})
	t.Run("Entries lists both scopes sorted by key", func(t *testing.T) {
		a := bbAgent(t)
		bb := a.Blackboard()
		bb.Set("zeta", "z")
		bb.Set("@global", 1)
		bb.Set("alpha", true)
		bb.Set("gone", 3)
		bb.Delete("gone")
		var keys []string
		for _, e := range bb.Entries() {
			keys = append(keys, e.Key)
		}
		want := []string{"@global", "alpha", "zeta"}
		if !reflect.DeepEqual(keys, want) {
			t.Fatalf("Entries keys = %v, want %v", keys, want)
		}
	})
}

func TestBlackboardTTL(t *testing.T) {
	const at = 100 * time.Millisecond
	const ttl = 50 * time.Millisecond
	cases := []struct {
		name    string
		now     time.Duration
		present bool
	}{
		{"present at the time it was set", at, true},
		{"present just before t+d", at + ttl - time.Nanosecond, true},
		{"present at exactly t+d", at + ttl, true},
		{"missing one nanosecond after t+d", at + ttl + time.Nanosecond, false},
		{"missing long after", at + time.Hour, false},
	}
	writers := []struct {
		name string
		set  func(bb *arbor.Blackboard)
	}{
		{"Key.SetTTL", func(bb *arbor.Blackboard) { arbor.NewKey[int]("ammo").SetTTL(bb, 3, ttl) }},
		{"Blackboard.SetTTL", func(bb *arbor.Blackboard) { bb.SetTTL("ammo", 3, ttl) }},
	}
	for _, w := range writers {
		for _, c := range cases {
			t.Run(w.name+": "+c.name, func(t *testing.T) {
				// The tree's Check shows what nodes see; Has and Lookup
				// what game code sees between ticks.
				a := arbor.NewAgent(bbCompile(t, arbor.Check("ammo", "exists")))
				a.Tick(at)
				w.set(a.Blackboard())
				s := a.Tick(c.now)
				if want := map[bool]arbor.Status{true: arbor.Success, false: arbor.Failure}[c.present]; s != want {
					t.Errorf("Check exists at %v: %v, want %v", c.now, s, want)
				}
				if got := arbor.NewKey[int]("ammo").Has(a.Blackboard()); got != c.present {
					t.Errorf("Has at %v = %v, want %v", c.now, got, c.present)
				}
				_, err := arbor.NewKey[int]("ammo").Get(a.Blackboard())
				if c.present && err != nil {
					t.Errorf("Get at %v: %v", c.now, err)
				}
				if !c.present && !errors.Is(err, arbor.ErrMissing) {
					t.Errorf("Get at %v: err = %v, want ErrMissing", c.now, err)
				}
				if _, ok := a.Blackboard().Lookup("ammo"); ok != c.present {
					t.Errorf("Lookup at %v: present = %v, want %v", c.now, ok, c.present)
				}
				listed := false
				for _, e := range a.Blackboard().Entries() {
					if e.Key == "ammo" {
						listed = true
						if !e.HasTTL || e.Expires != at+ttl {
							t.Errorf("entry: HasTTL %v, Expires %v; want true, %v", e.HasTTL, e.Expires, at+ttl)
						}
					}
				}
				if listed != c.present {
					t.Errorf("Entries lists ammo = %v, want %v", listed, c.present)
				}
			})
		}
	}
	for _, c := range cases {
		t.Run("Set node with ttlMs: "+c.name, func(t *testing.T) {
			// RunOnce writes the value once, on the tick at `at`.
			root := arbor.Sequence(
				arbor.RunOnce(arbor.Set("ammo", 3).With("ttlMs", 50)),
				arbor.Check("ammo", "exists"),
			)
			a := arbor.NewAgent(bbCompile(t, root))
			if s := a.Tick(at); s != arbor.Success {
				t.Fatalf("first tick: %v, want success", s)
			}
			s := a.Tick(c.now)
			if want := map[bool]arbor.Status{true: arbor.Success, false: arbor.Failure}[c.present]; s != want {
				t.Errorf("at %v: %v, want %v", c.now, s, want)
			}
		})
	}
	t.Run("ttl zero is present only at the instant it was set", func(t *testing.T) {
		a := bbAgent(t)
		a.Tick(at)
		a.Blackboard().SetTTL("k", "v", 0)
		a.Tick(at)
		if _, ok := a.Blackboard().Lookup("k"); !ok {
			t.Fatalf("missing at t with ttl 0")
		}
		a.Tick(at + time.Nanosecond)
		if _, ok := a.Blackboard().Lookup("k"); ok {
			t.Fatalf("present after t with ttl 0")
		}
	})
	t.Run("setting again without a ttl removes the expiry", func(t *testing.T) {
		a := bbAgent(t)
		a.Blackboard().SetTTL("k", 1, ttl)
		a.Blackboard().Set("k", 2)
		a.Tick(time.Hour)
		if v, ok := a.Blackboard().Lookup("k"); !ok || !v.Equal(arbor.Number(2)) {
			t.Fatalf("k = %v, %v; want 2 without expiry", v, ok)
		}
	})
	t.Run("an expired key set again is present again", func(t *testing.T) {
		a := bbAgent(t)
		a.Blackboard().SetTTL("k", 1, ttl)
		a.Tick(time.Second)
		if _, ok := a.Blackboard().Lookup("k"); ok {
			t.Fatalf("present after expiry")
		}
		a.Blackboard().SetTTL("k", 2, ttl)
		a.Tick(time.Second + ttl)
		if v, ok := a.Blackboard().Lookup("k"); !ok || !v.Equal(arbor.Number(2)) {
			t.Fatalf("k = %v, %v; want 2", v, ok)
		}
	})
	t.Run("Globals.SetTTL: present while an agent's clock is at most at+ttl", func(t *testing.T) {
		g := arbor.NewGlobals()
		g.SetTTL("flag", true, at, ttl) // "@" optional
		r := bbAgent(t, arbor.WithGlobals(g))
		for _, c := range cases {
			r.Tick(c.now)
			if _, ok := r.Blackboard().Lookup("@flag"); ok != c.present {
				t.Errorf("%s: present = %v", c.name, ok)
			}
			if _, ok := g.Lookup("flag", c.now); ok != c.present {
				t.Errorf("%s: Globals.Lookup present = %v", c.name, ok)
			}
		}
		g.Set("flag", true) // without a TTL again
		if _, ok := g.Lookup("flag", time.Hour); !ok {
			t.Error("Set after SetTTL kept the expiry")
		}
		g.SetTTL("flag", nil, at, ttl) // nil deletes
		if _, ok := g.Lookup("flag", at); ok {
			t.Error("SetTTL with nil did not delete")
		}
	})
	t.Run("the TTL of a global key counts from the writer's clock", func(t *testing.T) {
		g := arbor.NewGlobals()
		w := bbAgent(t, arbor.WithGlobals(g))
		r := bbAgent(t, arbor.WithGlobals(g))
		w.Tick(at)
		w.Blackboard().SetTTL("@flag", true, ttl)
		r.Tick(at + ttl)
		if _, ok := r.Blackboard().Lookup("@flag"); !ok {
			t.Fatalf("missing at t+d for another agent")
		}
		r.Tick(at + ttl + time.Millisecond)
		if _, ok := r.Blackboard().Lookup("@flag"); ok {
			t.Fatalf("present after t+d for another agent")
		}
	})
}

func TestKeyTypedReads(t *testing.T) {
	type result struct {
		val any
		err string // "", "missing" or "type"
	}
	read := func(name string, get func(bb *arbor.Blackboard) (any, error)) func(bb *arbor.Blackboard) result {
		return func(bb *arbor.Blackboard) result {
			v, err := get(bb)
			var te *arbor.TypeError
			switch {
			case err == nil:
				return result{val: v}
			case errors.Is(err, arbor.ErrMissing):
				return result{err: "missing"}
			case errors.As(err, &te):
				if te.Key != name {
					return result{err: "type error names key " + te.Key}
				}
				return result{err: "type"}
			}
			return result{err: err.Error()}
		}
	}
	getAs := func(f func(bb *arbor.Blackboard) (any, error)) func(bb *arbor.Blackboard) result {
		return read("k", f)
	}
	f64 := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[float64]("k").Get(bb) })
	f32 := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[float32]("k").Get(bb) })
	i := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[int]("k").Get(bb) })
	i8 := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[int8]("k").Get(bb) })
	i64 := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[int64]("k").Get(bb) })
	u := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[uint]("k").Get(bb) })
	u64 := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[uint64]("k").Get(bb) })
	b := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[bool]("k").Get(bb) })
	s := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[string]("k").Get(bb) })
	anyK := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[any]("k").Get(bb) })
	val := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[arbor.Value]("k").Get(bb) })
	pt := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[bbPoint]("k").Get(bb) })
	list := getAs(func(bb *arbor.Blackboard) (any, error) { return arbor.NewKey[[]any]("k").Get(bb) })

	cases := []struct {
		name  string
		store any // written with Blackboard.Set; nil: not written
		read  func(bb *arbor.Blackboard) result
		want  result
	}{
		{"float64 reads a number", 2.5, f64, result{val: 2.5}},
		{"float64 reads a number written as an int", 7, f64, result{val: 7.0}},
		{"float64 on a string is a TypeError", "2.5", f64, result{err: "type"}},
		{"float32 reads an exactly representable number", 0.5, f32, result{val: float32(0.5)}},
		{"float32 on an inexact number is a TypeError", 0.1, f32, result{err: "type"}},
		{"int reads an integral number", 3.0, i, result{val: 3}},
		{"int reads a negative integral number", -42.0, i, result{val: -42}},
		{"int on a fractional number is a TypeError", 2.5, i, result{err: "type"}},
		{"int on a string is a TypeError", "3", i, result{err: "type"}},
		{"int on a boolean is a TypeError", true, i, result{err: "type"}},
		{"int8 reads 127", 127.0, i8, result{val: int8(127)}},
		{"int8 on 128 is a TypeError", 128.0, i8, result{err: "type"}},
		{"int8 on -129 is a TypeError", -129.0, i8, result{err: "type"}},
		{"int64 reads 2^53", float64(1 << 53), i64, result{val: int64(1 << 53)}},
		{"int64 on 2^63 is a TypeError (not representable)", math.Ldexp(1, 63), i64, result{err: "type"}},
		{"int on 2^63 is a TypeError (not representable)", math.Ldexp(1, 63), i, result{err: "type"}},
		{"int64 on +Inf is a TypeError", math.Inf(1), i64, result{err: "type"}},
		{"int on NaN is a TypeError", math.NaN(), i, result{err: "type"}},
		{"uint on a negative number is a TypeError", -1.0, u, result{err: "type"}},
		{"uint64 on 2^64 is a TypeError (not representable)", math.Ldexp(1, 64), u64, result{err: "type"}},
		{"uint64 reads 2^63", math.Ldexp(1, 63), u64, result{val: uint64(1) << 63}},
		{"bool reads a boolean", true, b, result{val: true}},
		{"bool reads false", false, b, result{val: false}},
		{"bool on a number is a TypeError", 1, b, result{err: "type"}},
		{"bool on a string is a TypeError", "true", b, result{err: "type"}},
		{"string reads a string", "wolf", s, result{val: "wolf"}},
		{"string reads the empty string", "", s, result{val: ""}},
		{"string on a number is a TypeError", 5, s, result{err: "type"}},
		{"any reads a number as float64", 5, anyK, result{val: 5.0}},
		{"any reads a string", "x", anyK, result{val: "x"}},
		{"any reads a boolean", true, anyK, result{val: true}},
		{"any reads a list as stored", []any{1.0, "a"}, anyK, result{val: []any{1.0, "a"}}},
		{"any reads a user struct", bbPoint{1, 2}, anyK, result{val: bbPoint{1, 2}}},
		{"Value reads a number", 4, val, result{val: arbor.Number(4)}},
		{"Value reads a string", "s", val, result{val: arbor.String("s")}},
		{"user struct reads back", bbPoint{3, 4}, pt, result{val: bbPoint{3, 4}}},
		{"user struct on a number is a TypeError", 3, pt, result{err: "type"}},
		{"user struct on a pointer to it is a TypeError", &bbPoint{3, 4}, pt, result{err: "type"}},
		{"[]any reads a list", []any{"a", 2.0}, list, result{val: []any{"a", 2.0}}},
		{"float64 on a missing key is ErrMissing", nil, f64, result{err: "missing"}},
		{"any on a missing key is ErrMissing", nil, anyK, result{err: "missing"}},
		{"user struct on a missing key is ErrMissing", nil, pt, result{err: "missing"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := bbAgent(t)
			if c.store != nil {
				a.Blackboard().Set("k", c.store)
			}
			got := c.read(a.Blackboard())
			if got.err != c.want.err {
				t.Fatalf("got error %q (value %#v), want error %q", got.err, got.val, c.want.err)
			}
			if c.want.err == "" {
				if gv, ok := got.val.(arbor.Value); ok {
					if !gv.Equal(c.want.val.(arbor.Value)) {
						t.Fatalf("got %v, want %v", gv, c.want.val)
					}
					return
				}
				if !reflect.DeepEqual(got.val, c.want.val) {
					t.Fatalf("got %#v, want %#v", got.val, c.want.val)
				}
			}
		})
	}

	t.Run("TypeError carries the key, the handle type and the stored kind", func(t *testing.T) {
		a := bbAgent(t)
		a.Blackboard().Set("hp", "full")
		_, err := arbor.NewKey[float64]("hp").Get(a.Blackboard())
		var te *arbor.TypeError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v, want *TypeError", err)
		}
		if te.Key != "hp" || te.Got != arbor.KindString || te.Want != "float64" {
			t.Fatalf("TypeError = %+v", te)
		}
		if errors.Is(err, arbor.ErrMissing) {
			t.Fatalf("a TypeError must not be ErrMissing")
		}
	})
	t.Run("typed handles write what other handles and names read", func(t *testing.T) {
		a := bbAgent(t)
		bb := a.Blackboard()
		arbor.NewKey[int]("n").Set(bb, 5)
		if v := bb.Value("n"); v.Kind() != arbor.KindNumber || !v.Equal(arbor.Number(5)) {
			t.Fatalf("an int handle wrote %v (%v), want number 5", v, v.Kind())
		}
		if f, err := arbor.NewKey[float64]("n").Get(bb); err != nil || f != 5 {
			t.Fatalf("float64 read = %v, %v", f, err)
		}
		arbor.NewKey[bbPoint]("p").Set(bb, bbPoint{1, 2})
		if v := bb.Value("p"); v.Kind() != arbor.KindOther || v.Interface() != (bbPoint{1, 2}) {
			t.Fatalf("a struct handle wrote %v (%v)", v, v.Kind())
		}
		k := arbor.NewKey[string]("name")
		if k.Name() != "name" {
			t.Fatalf("Name() = %q", k.Name())
		}
		if k.Has(bb) {
			t.Fatalf("Has before any write")
		}
		k.Set(bb, "")
		if !k.Has(bb) {
			t.Fatalf("an empty string must be present")
		}
	})
	t.Run("a user node reading the wrong type fails and reports a TypeError", func(t *testing.T) {
		reg := arbor.NewRegistry()
		hp := arbor.NewKey[float64]("hp")
		if err := reg.ActionFunc("ReadHP", func(c *arbor.Ctx) (arbor.Status, error) {
			if _, err := hp.Get(c.Blackboard()); err != nil {
				return arbor.Failure, err
			}
			return arbor.Success, nil
		}); err != nil {
			t.Fatal(err)
		}
		tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": arbor.Leaf("ReadHP")}}, reg)
		if err != nil {
			t.Fatal(err)
		}
		var reported []*arbor.NodeError
		a := arbor.NewAgent(tree, arbor.WithErrorHandler(func(e *arbor.NodeError) { reported = append(reported, e) }))
		a.Blackboard().Set("hp", "lots")
		if s := a.Tick(0); s != arbor.Failure {
			t.Fatalf("tick = %v, want failure", s)
		}
		var te *arbor.TypeError
		if len(reported) != 1 || !errors.As(reported[0], &te) || reported[0].Type != "ReadHP" {
			t.Fatalf("reported %v, want one NodeError wrapping a TypeError", reported)
		}
		a.Blackboard().Set("hp", 3)
		if s := a.Tick(time.Millisecond); s != arbor.Success {
			t.Fatalf("after a good value: %v, want success", s)
		}
	})
}

func TestBlackboardDelete(t *testing.T) {
	cases := []struct {
		name string
		del  func(a *arbor.Agent)
	}{
		{"Blackboard.Delete", func(a *arbor.Agent) { a.Blackboard().Delete("k") }},
		{"Key.Delete", func(a *arbor.Agent) { arbor.NewKey[float64]("k").Delete(a.Blackboard()) }},
		{"Blackboard.Set with nil", func(a *arbor.Agent) { a.Blackboard().Set("k", nil) }},
		{"Blackboard.Set with a missing Value", func(a *arbor.Agent) { a.Blackboard().Set("k", arbor.Value{}) }},
		{"Key[any].Set with nil", func(a *arbor.Agent) { arbor.NewKey[any]("k").Set(a.Blackboard(), nil) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := bbAgent(t)
			a.Blackboard().Set("k", 1)
			a.Blackboard().Set("other", 2)
			c.del(a)
			if _, ok := a.Blackboard().Lookup("k"); ok {
				t.Fatalf("k is still present")
			}
			if _, err := arbor.NewKey[float64]("k").Get(a.Blackboard()); !errors.Is(err, arbor.ErrMissing) {
				t.Fatalf("Get after delete: %v, want ErrMissing", err)
			}
			if !a.Blackboard().Value("k").IsMissing() {
				t.Fatalf("Value after delete is not missing")
			}
			if _, ok := a.Blackboard().Lookup("other"); !ok {
				t.Fatalf("deleting k removed another key")
			}
			for _, e := range a.Blackboard().Entries() {
				if e.Key == "k" {
					t.Fatalf("Entries still lists k")
				}
			}
		})
	}
	for _, src := range []string{
		`{"type": "Set", "key": "k", "value": null}`,
		"type: Set\nkey: k\nvalue: null\n",
		"type: Set\nkey: k\nvalue: ~\n",
	} {
		t.Run("a Set node with a null value deletes the key: "+src, func(t *testing.T) {
			var doc *arbor.Document
			var err error
			if src[0] == '{' {
				doc, err = arbor.ParseJSON([]byte(src))
			} else {
				doc, err = arbor.ParseYAML([]byte(src))
			}
			if err != nil {
				t.Fatal(err)
			}
			tree, err := arbor.Compile(doc, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := arbor.NewAgent(tree)
			a.Blackboard().Set("k", "here")
			if s := a.Tick(0); s != arbor.Success {
				t.Fatalf("Set null: %v, want success", s)
			}
			if _, ok := a.Blackboard().Lookup("k"); ok {
				t.Fatalf("k is still present after Set null")
			}
		})
	}
	t.Run("deleting a key never written is harmless", func(t *testing.T) {
		a := bbAgent(t)
		a.Blackboard().Delete("never-written-key")
		arbor.NewKey[int]("@never-written-global").Delete(a.Blackboard())
		if len(a.Blackboard().Entries()) != 0 {
			t.Fatalf("entries appeared: %v", a.Blackboard().Entries())
		}
	})
	t.Run("deleting a global key", func(t *testing.T) {
		a := bbAgent(t)
		a.Blackboard().Set("@g", 1)
		a.Blackboard().Set("@g", nil)
		if _, ok := a.Blackboard().Lookup("@g"); ok {
			t.Fatalf("@g is still present")
		}
	})
}

func TestBlackboardEntries(t *testing.T) {
	a := bbAgent(t)
	a.Tick(10 * time.Millisecond)
	bb := a.Blackboard()
	bb.Set("b", "two")
	bb.SetTTL("a", 1, 5*time.Millisecond)
	bb.Set("@c", true)
	got := bb.Entries()
	want := []struct {
		key     string
		val     arbor.Value
		hasTTL  bool
		expires time.Duration
	}{
		{"@c", arbor.Bool(true), false, 0},
		{"a", arbor.Number(1), true, 15 * time.Millisecond},
		{"b", arbor.String("two"), false, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("Entries = %v, want %d entries", got, len(want))
	}
	for i, w := range want {
		t.Run("entry "+w.key, func(t *testing.T) {
			e := got[i]
			if e.Key != w.key || !e.Value.Equal(w.val) || e.HasTTL != w.hasTTL {
				t.Fatalf("entry %d = %+v, want key %q value %v hasTTL %v", i, e, w.key, w.val, w.hasTTL)
			}
			if w.hasTTL && e.Expires != w.expires {
				t.Fatalf("Expires = %v, want %v", e.Expires, w.expires)
			}
		})
	}
	t.Run("expired entries are not listed", func(t *testing.T) {
		a.Tick(16 * time.Millisecond)
		for _, e := range bb.Entries() {
			if e.Key == "a" {
				t.Fatalf("expired entry a listed")
			}
		}
		if n := len(bb.Entries()); n != 2 {
			t.Fatalf("%d entries, want 2", n)
		}
	})
}

func TestValueEqual(t *testing.T) {
	cases := []struct {
		name string
		a, b arbor.Value
		want bool
	}{
		{"5 == 5.0", arbor.ValueOf(5), arbor.Number(5.0), true},
		{"int64 5 == uint8 5", arbor.ValueOf(int64(5)), arbor.ValueOf(uint8(5)), true},
		{"float32 0.5 == 0.5", arbor.ValueOf(float32(0.5)), arbor.Number(0.5), true},
		{"5 != 5.5", arbor.Number(5), arbor.Number(5.5), false},
		{"-0 == 0", arbor.Number(math.Copysign(0, -1)), arbor.Number(0), true},
		{"strings equal", arbor.String("a"), arbor.ValueOf("a"), true},
		{"strings differ", arbor.String("a"), arbor.String("b"), false},
		{"booleans equal", arbor.Bool(true), arbor.ValueOf(true), true},
		{"booleans differ", arbor.Bool(true), arbor.Bool(false), false},
		{"number 1 vs true: different kinds", arbor.Number(1), arbor.Bool(true), false},
		{"number 0 vs false: different kinds", arbor.Number(0), arbor.Bool(false), false},
		{"string 5 vs number 5: different kinds", arbor.String("5"), arbor.Number(5), false},
		{"empty string vs missing", arbor.String(""), arbor.Value{}, false},
		{"number vs list", arbor.Number(1), arbor.ValueOf([]any{1.0}), false},
		{"list vs map", arbor.ValueOf([]any{}), arbor.ValueOf(map[string]any{}), false},
		{"lists compare elements numerically", arbor.ValueOf([]any{1.0, "a", true}), arbor.ValueOf([]any{1, "a", true}), true},
		{"lists of different length", arbor.ValueOf([]any{1.0, 2.0}), arbor.ValueOf([]any{1.0}), false},
		{"lists with a different element", arbor.ValueOf([]any{1.0, 2.0}), arbor.ValueOf([]any{1.0, 3.0}), false},
		{"lists in another order", arbor.ValueOf([]any{1.0, 2.0}), arbor.ValueOf([]any{2.0, 1.0}), false},
		{"list elements of different kinds", arbor.ValueOf([]any{"1"}), arbor.ValueOf([]any{1.0}), false},
		{"nested lists deeply", arbor.ValueOf([]any{[]any{1.0, []any{2.0}}}), arbor.ValueOf([]any{[]any{1, []any{2}}}), true},
		{"nested lists differing deep down", arbor.ValueOf([]any{[]any{1.0, []any{2.0}}}), arbor.ValueOf([]any{[]any{1.0, []any{3.0}}}), false},
		{"maps deeply", arbor.ValueOf(map[string]any{"a": 1.0, "b": []any{"x"}}), arbor.ValueOf(map[string]any{"b": []any{"x"}, "a": 1}), true},
		{"maps with a different value", arbor.ValueOf(map[string]any{"a": 1.0}), arbor.ValueOf(map[string]any{"a": 2.0}), false},
		{"maps with a different key", arbor.ValueOf(map[string]any{"a": 1.0}), arbor.ValueOf(map[string]any{"b": 1.0}), false},
		{"maps with an extra key", arbor.ValueOf(map[string]any{"a": 1.0}), arbor.ValueOf(map[string]any{"a": 1.0, "b": 1.0}), false},
		{"nested maps in lists", arbor.ValueOf([]any{map[string]any{"k": []any{1.0}}}), arbor.ValueOf([]any{map[string]any{"k": []any{1}}}), true},
		{"a file list equals a Go []int with the same numbers", arbor.ValueOf([]any{1.0, 2.0}), arbor.ValueOf([]int{1, 2}), true},
		{"a file list differs from a Go []int with other numbers", arbor.ValueOf([]any{1.0, 2.0}), arbor.ValueOf([]int{1, 3}), false},
		{"a file object equals a Go map[string]int with the same numbers", arbor.ValueOf(map[string]any{"a": 1.0}), arbor.ValueOf(map[string]int{"a": 1}), true},
		{"user structs equal", arbor.ValueOf(bbPoint{1, 2}), arbor.ValueOf(bbPoint{1, 2}), true},
		{"user structs differ", arbor.ValueOf(bbPoint{1, 2}), arbor.ValueOf(bbPoint{2, 1}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.a.Equal(c.b); got != c.want {
				t.Errorf("%v.Equal(%v) = %v, want %v", c.a, c.b, got, c.want)
			}
			if got := c.b.Equal(c.a); got != c.want {
				t.Errorf("%v.Equal(%v) = %v, want %v (Equal must be symmetric)", c.b, c.a, got, c.want)
			}
		})
	}

	t.Run("ValueOf gives each Go type its kind", func(t *testing.T) {
		kinds := []struct {
			in   any
			want arbor.Kind
		}{
			{nil, arbor.KindNone},
			{true, arbor.KindBool},
			{3, arbor.KindNumber},
			{uint16(3), arbor.KindNumber},
			{float32(1.5), arbor.KindNumber},
			{"s", arbor.KindString},
			{[]any{1}, arbor.KindOther},
			{map[string]any{}, arbor.KindOther},
			{bbPoint{}, arbor.KindOther},
			{&bbPoint{}, arbor.KindOther},
		}
		for _, k := range kinds {
			if got := arbor.ValueOf(k.in).Kind(); got != k.want {
				t.Errorf("ValueOf(%#v).Kind() = %v, want %v", k.in, got, k.want)
			}
		}
		if !arbor.ValueOf(nil).IsMissing() || arbor.ValueOf(0).IsMissing() {
			t.Errorf("IsMissing wrong for nil or 0")
		}
	})

	// Check's == uses the same equality (semantics §6, §8).
	checks := []struct {
		name  string
		store any
		value any
		op    string
		want  arbor.Status
	}{
		{"Check == 5 against an int 5 written by Go", 5, 5.0, "==", arbor.Success},
		{"Check == [1,2] against a list", []any{1.0, 2.0}, []any{1, 2}, "==", arbor.Success},
		{"Check == {a:1} against a map", map[string]any{"a": 1.0}, map[string]any{"a": 1}, "==", arbor.Success},
		{"Check != between different kinds is true", "5", 5, "!=", arbor.Success},
		{"Check == between different kinds is false", "5", 5, "==", arbor.Failure},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			a := arbor.NewAgent(bbCompile(t, arbor.Check("v", c.op, c.value)))
			a.Blackboard().Set("v", c.store)
			if s := a.Tick(0); s != c.want {
				t.Fatalf("tick = %v, want %v", s, c.want)
			}
		})
	}
}

// A missing key's error names the key, matches ErrMissing, and costs no
// allocation.
func TestKeyGetMissingNamesTheKey(t *testing.T) {
	tree := mustCompile(t, arbor.NewRegistry(), arbor.Check("hp", "<", 30))
	bb := arbor.NewAgent(tree).Blackboard()
	hp := arbor.NewKey[float64]("hp")
	_, err := hp.Get(bb)
	var me *arbor.MissingError
	if !errors.Is(err, arbor.ErrMissing) || !errors.As(err, &me) || me.Key != "hp" || !strings.Contains(err.Error(), `"hp"`) {
		t.Fatalf("Get of a missing key: %v", err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = hp.Get(bb) }); n != 0 {
		t.Errorf("a missing Get allocates %v times", n)
	}
	var zero arbor.Key[float64]
	if _, err := zero.Get(bb); !errors.Is(err, arbor.ErrMissing) || zero.Name() != "" {
		t.Errorf("zero Key: %v, name %q", err, zero.Name())
	}
}

// BenchmarkKeyRead reads keys of the agent's tree through typed Keys, as
// user actions do between or during ticks: two Gets and a Has an op.
func BenchmarkKeyRead(b *testing.B) {
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": arbor.Sequence(
		arbor.Check("hp", "<", 30), arbor.Check("enemyVisible", "==", true))}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	hp, visible := arbor.NewKey[float64]("hp"), arbor.NewKey[bool]("enemyVisible")
	bb := arbor.NewAgent(tree).Blackboard()
	hp.Set(bb, 25)
	visible.Set(bb, true)
	n := 0
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, _ := hp.Get(bb)
		v, _ := visible.Get(bb)
		if v && f < 30 && hp.Has(bb) {
			n++
		}
	}
	if n != b.N {
		b.Fatalf("%d reads of %d saw the values", n, b.N)
	}
}
