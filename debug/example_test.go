package debug_test

import (
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
