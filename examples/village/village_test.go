package village

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/debug"
)

func loadTrees(t testing.TB) (villager, monster *arbor.Tree) {
	t.Helper()
	v, m, err := LoadTrees(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	return v, m
}

func TestHeadlessRun(t *testing.T) {
	v, m := loadTrees(t)
	w := New(Config{Villagers: 60, Monsters: 4}, v, m)
	sum := RunHeadless(w, 1200) // one minute of village time
	if sum.Ticks != 1200 || sum.GameTime != time.Minute || sum.Villagers != 60 || sum.Monsters != 4 {
		t.Fatalf("summary %+v", sum)
	}
	// Villagers act: every activity of the cycle was started by someone.
	for _, act := range []string{"Work", "HaveFun", "DrinkWater", "EatFood"} {
		if sum.Started[act] == 0 {
			t.Errorf("no villager started %s: %v", act, sum.Started)
		}
	}
	moved := 0
	for _, vi := range w.Villagers {
		if vi.Pos.dist(Vec{0, -3.037}) > 5 {
			moved++
		}
	}
	if moved < 50 {
		t.Errorf("only %d of 60 villagers left the spawn area", moved)
	}
	if sum.Attacks == 0 {
		t.Errorf("the monsters never attacked: %+v", sum)
	}
	var out strings.Builder
	if err := sum.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"village: 60 villagers, 4 monsters, 1200 ticks (1m0s of game time)", "ticks/s", "activities started: HaveFun ", "deaths: ", "monsters: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// TestSpecTimeline checks the uniform villager against the timeline of
// village.md's model (indicative there; Arbor's Repeat restarts its child
// on the next tick, so activities start a tick or two later).
func TestSpecTimeline(t *testing.T) {
	v, m := loadTrees(t)
	w := New(Config{Villagers: 1, Monsters: -1, Uniform: true}, v, m)
	type change struct {
		at  float64
		act string
	}
	var got []change
	prev := -1
	for i := 0; i < 20*30; i++ {
		RunHeadless(w, 1)
		if a := w.Villagers[0].Act; a != prev {
			prev = a
			if a >= ActHaveFun {
				got = append(got, change{float64(w.Ticks()) / 20, ActivityNames[a]})
			}
		}
	}
	want := []change{{1.0, "Work"}, {7.7, "HaveFun"}, {13.5, "DrinkWater"}, {19.1, "EatFood"}, {24.9, "Work"}}
	if len(got) < len(want) {
		t.Fatalf("activities %v", got)
	}
	for i, c := range want {
		if got[i].act != c.act || got[i].at < c.at-0.2 || got[i].at > c.at+0.8 {
			t.Errorf("activity %d: %s at %.2fs, want %s at ≈%.1fs", i, got[i].act, got[i].at, c.act, c.at)
		}
	}
}

// TestHourWithoutDeathOrSpin runs an hour of village time without
// monsters (village.md: "no death and no spin within 3600 s"): no
// villager dies, and none goes more than 30 s without an activity (the
// spin of village.md's tree: an instant work branch, one iteration per
// tick, forever).
func TestHourWithoutDeathOrSpin(t *testing.T) {
	v, m := loadTrees(t)
	for _, cfg := range []Config{
		{Villagers: 1, Monsters: -1, Uniform: true, Workers: 1},
		{Villagers: 20, Monsters: -1, Seed: 7, Workers: 1},
	} {
		w := New(cfg, v, m)
		tk := Plain(w.Manager())
		idle := make([]int, len(w.Villagers)) // ticks since the last activity
		for i := 0; i < 20*3600; i++ {
			w.Step(tk)
			for j, vi := range w.Villagers {
				if idle[j]++; vi.Act >= ActHaveFun {
					idle[j] = 0
				}
				if idle[j] > 20*30 {
					t.Fatalf("%+v: villager %d has had no activity for 30 s at %d s (%s, needs %v)", cfg, j, i/20, ActivityNames[vi.Act], readNeeds(vi.agent.Blackboard()))
				}
			}
		}
		sum := w.Summary(0)
		if sum.Deaths != 0 {
			t.Errorf("%+v: %d deaths in an hour: %+v", cfg, sum.Deaths, sum.Started)
		}
	}
}

func TestLoadTreesErrors(t *testing.T) {
	good, err := os.ReadFile("monster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]fstest.MapFS{
		"no villager": {"monster.yaml": {Data: good}},
		"bad YAML":    {"villager.yaml": {Data: []byte("type: [")}, "monster.yaml": {Data: good}},
		"unknown node": {"villager.yaml": {Data: []byte("type: Sequence\nchildren:\n  - {type: FeelHngry}\n")},
			"monster.yaml": {Data: good}},
		"bad zone": {"villager.yaml": {Data: []byte("type: FeelHungry\nzone: Moon\n")}, "monster.yaml": {Data: good}},
	}
	for name, fsys := range cases {
		if _, _, err := LoadTrees(fsys); err == nil {
			t.Errorf("%s: no error", name)
		} else if name == "unknown node" && !strings.Contains(err.Error(), "villager.yaml") {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
	// JSON files work too, and the embedded copies load.
	fsys := fstest.MapFS{
		"villager.json": {Data: []byte(`{"type": "Sequence", "children": [{"type": "FeelHungry", "zone": "River"}, {"type": "WalkTo"}]}`)},
		"monster.yml":   {Data: good},
	}
	if _, _, err := LoadTrees(fsys); err != nil {
		t.Errorf("JSON villager: %v", err)
	}
	if _, _, err := LoadTrees(Embedded()); err != nil {
		t.Errorf("embedded trees: %v", err)
	}
	// The embedded copies are the files of this directory.
	for _, name := range []string{"villager.yaml", "monster.yaml"} {
		disk, _ := os.ReadFile(name)
		emb, _ := Embedded().(interface{ ReadFile(string) ([]byte, error) }).ReadFile(name)
		if string(disk) != string(emb) {
			t.Errorf("embedded %s differs from the file", name)
		}
	}
}

func TestLabels(t *testing.T) {
	v, m := loadTrees(t)
	w := New(Config{Villagers: 2, Monsters: 1}, v, m)
	RunHeadless(w, 40)
	if l := w.Label(w.Manager().Agent(0)); !strings.HasPrefix(l, "villager 0 · ") || !strings.Contains(l, "money") {
		t.Errorf("villager label %q", l)
	}
	if l := w.Label(w.Manager().Agent(2)); !strings.HasPrefix(l, "monster 0 · ") || !strings.Contains(l, "hp") {
		t.Errorf("monster label %q", l)
	}
}

func TestWorldView(t *testing.T) {
	v, m := loadTrees(t)
	w := New(Config{Villagers: 10, Monsters: 2}, v, m)
	sess := debug.NewSession(w.Manager(), debug.Options{})
	srv := httptest.NewServer(w.Mux(sess))
	defer srv.Close()
	for _, path := range []string{"/", "/world/static/world.js", "/world/static/world.css", "/debug/", "/debug/api/session"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	resp, err := http.Get(srv.URL + "/world/info")
	if err != nil {
		t.Fatal(err)
	}
	var info worldInfo
	err = json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if err != nil || len(info.Zones) != 5 || info.FirstMonster != 10 || len(info.Lairs) != 2 || info.Debugger != "debug/" {
		t.Fatalf("info %+v %v", info, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/world/stream", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	go func() {
		for ctx.Err() == nil {
			w.Step(sess)
			time.Sleep(5 * time.Millisecond)
		}
	}()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		var snap snapshot
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &snap); err != nil {
			t.Fatal(err)
		}
		if len(snap.Villagers) != 10 || len(snap.Monsters) != 2 || snap.Tick == 0 {
			t.Fatalf("frame %+v", snap)
		}
		return
	}
	t.Fatalf("no frame: %v", sc.Err())
}

// TestNoSnapshotsWithoutViewers checks that a world nobody looks at does
// not build frames.
func TestNoSnapshotsWithoutViewers(t *testing.T) {
	v, m := loadTrees(t)
	w := New(Config{Villagers: 5, Monsters: 1}, v, m)
	RunHeadless(w, 10)
	if w.snapshot.Load() != nil {
		t.Fatal("a frame was built with no viewer")
	}
}

func BenchmarkStep(b *testing.B) {
	v, m := loadTrees(b)
	w := New(Config{}, v, m)
	t := Plain(w.Manager())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Step(t)
	}
}

func TestSummaryWallTime(t *testing.T) {
	for _, tc := range []struct {
		wall time.Duration
		want string
	}{
		{42*time.Millisecond + 123456, "in 42.123ms:"},
		{3*time.Second + 456789012, "in 3.457s:"},
	} {
		var out strings.Builder
		if err := (Summary{Wall: tc.wall}).Write(&out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("wall %v: summary %q lacks %q", tc.wall, out.String(), tc.want)
		}
	}
}
