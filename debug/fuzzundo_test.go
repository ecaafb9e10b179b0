package debug

import (
	"fmt"
	"math/rand"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
)

// marksOf lists agent a's forces and breakpoints with their node ids.
func marksOf(t *testing.T, h http.Handler, id int) string {
	t.Helper()
	_, f := get(t, h, fmt.Sprintf("/api/agents/%d/forces", id))
	var out []string
	for _, x := range f["forces"].([]any) {
		m := x.(map[string]any)
		out = append(out, fmt.Sprintf("f%v:%v:%v", m["node"], m["label"], m["status"]))
	}
	_, b := get(t, h, fmt.Sprintf("/api/agents/%d/breakpoints", id))
	for _, x := range b["breakpoints"].([]any) {
		m := x.(map[string]any)
		out = append(out, fmt.Sprintf("b%v:%v:%v", m["node"], m["label"], m["on"]))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// Random edits, undos and redos: no 5xx, and an undo or a redo comes
// back to the tree and the marks that were there.
func TestFuzzUndoRedo(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		fuzzUndoRedo(t, seed)
		if t.Failed() {
			return
		}
	}
}

func fuzzUndoRedo(t *testing.T, seed int64) {
	s, h, tid, _ := editSession(t, Options{Registry: testRegistry(t)})
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	orig := treesOf(s)[0]
	s.Do(func(m *arbor.Manager) {
		m.Agent(1).Force(nodeID(t, orig, "Step"), arbor.Failure)
		m.Agent(0).Force(nodeID(t, orig, "investigate"), arbor.Success)
	})
	setBreak(t, h, 0, nodeID(t, orig, "Step"), "start")
	setBreak(t, h, 0, 6, "success")
	rng := rand.New(rand.NewSource(seed))
	type state struct{ outline, fp, marks string }
	cur := func() state {
		tr := treesOf(s)[0]
		return state{outline(tr), tr.Fingerprint(), marksOf(t, h, 0) + " | " + marksOf(t, h, 1)}
	}
	hist := []state{cur()}
	var redo []state
	var log []string
	var tidv any = tid
	for step := 0; step < 80; step++ {
		_, td := get(t, h, fmt.Sprintf("/api/trees/%v", tidv))
		nodes, _ := td["nodes"].([]any)
		var paths, comps []string
		for _, x := range nodes {
			m := x.(map[string]any)
			paths = append(paths, m["path"].(string))
			if len(m["children"].([]any)) > 0 {
				comps = append(comps, m["path"].(string))
			}
		}
		p := paths[rng.Intn(len(paths))]
		var code int
		var ans map[string]any
		var desc string
		switch r := rng.Intn(14); r {
		case 12:
			desc = "edit"
			code, ans = editTree(t, h, tidNum(tidv), fmt.Sprintf(`{"path":%q,"name":"n%d"}`, p, step))
		case 13:
			desc = "edit"
			code, ans = editTree(t, h, tidNum(tidv), fmt.Sprintf(`{"path":%q,"abort":%q}`, p, []string{"none", "self", "lower", "both"}[rng.Intn(4)]))
		case 0, 1:
			desc = "undo"
			code, ans = undoEdit(t, h, tidv)
		case 2, 3:
			desc = "redo"
			code, ans = redoEdit(t, h, tidv)
		default:
			var body string
			switch r {
			case 4:
				body = fmt.Sprintf(`{"op":"delete","path":%q}`, p)
			case 5:
				body = fmt.Sprintf(`{"op":"move","path":%q,"by":%d}`, p, 2*rng.Intn(2)-1)
			case 6, 7:
				body = fmt.Sprintf(`{"op":"move","path":%q,"to":%q,"index":%d}`, p, pick(rng, comps, p), rng.Intn(4)-1)
			case 8:
				body = fmt.Sprintf(`{"op":"wrap","path":%q,"node":{"type":%q}}`, p, []string{"Inverter", "Sequence", "Selector"}[rng.Intn(3)])
			case 9:
				body = fmt.Sprintf(`{"op":"unwrap","path":%q}`, p)
			case 10:
				body = fmt.Sprintf(`{"op":%q,"path":%q,"node":{"type":"Wait","params":{"ticks":2}}}`, []string{"add", "insert"}[rng.Intn(2)], p)
			case 11:
				body = fmt.Sprintf(`{"op":"guard","path":%q,"node":{"type":%q}}`, p, []string{"Success", "Failure", "Wait"}[rng.Intn(3)])
			}
			desc = body
			code, ans = shapeEdit(t, h, tidv, body)
		}
		log = append(log, fmt.Sprintf("%s → %d %v", desc, code, ans["error"]))
		if code >= 500 {
			t.Fatalf("seed %d: %s: %d %v\n%s", seed, desc, code, ans, strings.Join(log, "\n"))
		}
		if code != 200 {
			continue
		}
		tidv = ans["tree"]
		tickN(s, step*10, 1)
		now := cur()
		switch desc {
		case "undo":
			want := hist[len(hist)-2]
			redo = append(redo, hist[len(hist)-1])
			hist = hist[:len(hist)-1]
			if now != want {
				t.Fatalf("seed %d: undo: got %+v\nwant %+v\n%s", seed, now, want, strings.Join(log, "\n"))
			}
		case "redo":
			want := redo[len(redo)-1]
			redo = redo[:len(redo)-1]
			hist = append(hist, now)
			if now != want {
				t.Fatalf("seed %d: redo: got %+v\nwant %+v\n%s", seed, now, want, strings.Join(log, "\n"))
			}
		default:
			if ans["unchanged"] == true {
				continue
			}
			hist = append(hist, now)
			redo = nil
		}
	}
}

func tidNum(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case float64:
		return int(x)
	}
	return -1
}

func pick(rng *rand.Rand, ss []string, def string) string {
	if len(ss) == 0 {
		return def
	}
	return ss[rng.Intn(len(ss))]
}
