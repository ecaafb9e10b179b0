package debug_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/debug"
)

// Mount the debugger on a server of your own, tick through the session,
// and the page (or any HTTP client) sees the agents between ticks.
func ExampleSession_Handler() {
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{
		"Guard": arbor.ReactiveSelector(arbor.Check("enemy", "==", true), arbor.WaitTicks(3)),
	}}, arbor.NewRegistry())
	if err != nil {
		fmt.Println(err)
		return
	}
	m := arbor.NewManager()
	defer m.Close()
	for range 3 {
		m.Add(tree)
	}
	sess := debug.NewSession(m, debug.Options{})
	mux := http.NewServeMux()
	mux.Handle("/debug/arbor/", http.StripPrefix("/debug/arbor", sess.Handler()))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for tick := 1; tick <= 2; tick++ {
		sess.Tick(time.Duration(tick) * 100 * time.Millisecond)
	}
	resp, err := http.Get(srv.URL + "/debug/arbor/api/session")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var info struct {
		Tick   int `json:"tick"`
		Agents int `json:"agents"`
		Trees  []struct {
			Name     string         `json:"name"`
			ByStatus map[string]int `json:"byStatus"`
		} `json:"trees"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("tick", info.Tick, "agents", info.Agents)
	for _, t := range info.Trees {
		fmt.Println(t.Name, t.ByStatus)
	}
	// Output:
	// tick 2 agents 3
	// Guard map[running:3]
}

// Keep a flight recorder on an agent without a browser: watch it, and when
// something goes wrong write its recent history to a file that any
// debugger page (or "arbor replay") opens later.
func ExampleSession_Recording() {
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{
		"Patrol": arbor.Sequence(arbor.WaitTicks(2), arbor.Check("alarm", "==", false)),
	}}, arbor.NewRegistry())
	if err != nil {
		fmt.Println(err)
		return
	}
	m := arbor.NewManager()
	defer m.Close()
	agent := m.Add(tree)
	agent.Blackboard().Set("alarm", false)
	id := agent.ID()
	sess := debug.NewSession(m, debug.Options{History: 100})
	stop, err := sess.Watch(id)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	var failed bool
	for tick := 1; tick <= 10 && !failed; tick++ {
		if tick == 6 {
			sess.Do(func(m *arbor.Manager) { m.Agent(id).Blackboard().Set("alarm", true) })
		}
		sess.Tick(time.Duration(tick) * 100 * time.Millisecond)
		sess.Do(func(m *arbor.Manager) { failed = m.Agent(id).Status() == arbor.Failure })
	}
	rec, err := sess.Recording(id)
	if err != nil {
		fmt.Println(err)
		return
	}
	var file bytes.Buffer // an os.File in a real program
	if _, err := rec.WriteTo(&file); err != nil {
		fmt.Println(err)
		return
	}
	back, err := debug.LoadRecording(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("agent %d (%s): %d ticks recorded\n", back.Agent(), back.TreeName(), back.Ticks())
	// Output:
	// agent 0 (Patrol): 6 ticks recorded
}
