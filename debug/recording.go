package debug

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// RecordingFormat is the format field of a recording: the JSON the
// debugger exports for an agent (GET api/agents/{id}/export, the page's
// "Export JSON" button).
const RecordingFormat = "arbor-debug/1"

// maxRecording is the largest recording LoadRecording reads, in bytes.
const maxRecording = 512 << 20

// Recording is an agent's recorded history as the debugger exports it:
// its tree with the layout, and for each recorded tick the node statuses,
// running paths, events and blackboards, with per-node statistics. It is
// viewed without the program that made it: Handler serves the debugger's
// page with the recording open, read-only (also ServeRecording and
// "arbor replay"). The page can also open such a file by itself.
type Recording struct {
	// Name is shown in the page ("Recording: Name"); LoadRecordingFile
	// sets it to the file's base name.
	Name string

	ev   exportView
	data []byte // ev encoded, as served and written
}

// recordingInfo tells the page which recording it shows.
type recordingInfo struct {
	Name     string `json:"name"`
	Exported string `json:"exported"`
}

// LoadRecording reads a recording and checks it: the format field; an
// agent, a tree, the node statuses before the first tick and the ticks
// present; the tree's nodes numbered in pre-order with their links within
// the tree; a status letter per node before the first tick and in every
// tick; record numbers following each other; events and running paths
// naming nodes of the tree; per-node statistics, when present, for every
// node. (A recording of an agent nobody watched has no ticks and no
// statuses.) The error names the first problem found.
func LoadRecording(r io.Reader) (*Recording, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxRecording+1))
	if err != nil {
		return nil, fmt.Errorf("read recording: %w", err)
	}
	if len(raw) > maxRecording {
		return nil, fmt.Errorf("recording: larger than %d MiB", maxRecording>>20)
	}
	ev, err := parseRecording(raw)
	if err != nil {
		return nil, fmt.Errorf("not a debugger recording: %w", err)
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("recording: encode: %w", err)
	}
	return &Recording{ev: *ev, data: data}, nil
}

// Recording returns the recorded history of agent id as it is now: what
// the page's "Export JSON" saves (GET api/agents/{id}/export), to write to
// a file with WriteTo or to serve with Handler. An agent records while it
// is watched (Watch, or a page showing it), so a program can keep a flight
// recorder on the agents it cares about without a browser:
//
//	stop, _ := sess.Watch(id)
//	defer stop()
//	... // ticks; on the problem:
//	rec, _ := sess.Recording(id)
//	rec.WriteTo(f) // later: arbor replay agent.json
//
// It takes the session's lock, waiting for a tick in progress to end, so
// it must not be called where the lock is held: within a tick (an error
// handler, a tracer, a node), within Session.Do, or from Options.Label.
// It returns
// ErrNoAgent for an id the session does not know (an agent removed from
// the manager is known while its history is kept). An agent nobody
// watched gives a recording without ticks.
func (s *Session) Recording(id int) (*Recording, error) {
	ev, ok := s.exportOf(id)
	if !ok {
		return nil, fmt.Errorf("recording of agent %d: %w", id, ErrNoAgent)
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("recording of agent %d: encode: %w", id, err)
	}
	return &Recording{Name: fmt.Sprintf("agent-%d.json", id), ev: *ev, data: data}, nil
}

// WriteTo writes the recording as JSON (the format LoadRecording reads).
func (r *Recording) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(r.data)
	if err == nil && n < len(r.data) {
		err = io.ErrShortWrite
	}
	return int64(n), err
}

// LoadRecordingFile loads the recording in the file at path (see
// LoadRecording) and names it after the file.
func LoadRecordingFile(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open recording: %w", err)
	}
	defer f.Close()
	rec, err := LoadRecording(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rec.Name = filepath.Base(path)
	return rec, nil
}

// Agent returns the id the recorded agent had in its manager.
func (r *Recording) Agent() int { return r.ev.Agent.ID }

// TreeName returns the name of the recorded agent's tree.
func (r *Recording) TreeName() string { return r.ev.Tree.Name }

// Ticks returns the number of recorded ticks.
func (r *Recording) Ticks() int { return len(r.ev.Ticks) }

// Exported returns when the recording was exported, as written in it
// (RFC 3339, UTC).
func (r *Recording) Exported() string { return r.ev.Exported }

// Handler serves the debugger's page with the recording open: the page
// scrubs through its ticks as through a live agent's history, with no
// live agents and no controls. Its API is GET api/session (the recording's
// name and export time under "recording") and GET api/recording (the
// recording). Served on a loopback address, it refuses requests naming
// another host, as Session.Handler does.
func (r *Recording) Handler() http.Handler {
	h := newHandler(slog.Default())
	title := "Arbor replay"
	if r.Name != "" {
		title += " · " + r.Name
	}
	info := sessionInfo{Title: title, History: r.ev.History, Links: []Link{}, Trees: []treeInfo{}, Watched: []int{},
		BreakEvents: []string{}, Recording: &recordingInfo{Name: r.Name, Exported: r.ev.Exported}}
	h.mux.HandleFunc("GET /api/session", func(w http.ResponseWriter, _ *http.Request) {
		h.writeJSON(w, http.StatusOK, info)
	})
	h.mux.HandleFunc("GET /api/recording", func(w http.ResponseWriter, _ *http.Request) {
		h.writeJSON(w, http.StatusOK, json.RawMessage(r.data))
	})
	h.mux.HandleFunc("/api/", func(w http.ResponseWriter, _ *http.Request) {
		h.fail(w, http.StatusNotFound, "a recording has no live agents: only GET api/session and api/recording")
	})
	return h
}

// ServeRecording serves rec's Handler on addr (see Listen) until ctx ends:
//
//	rec, err := debug.LoadRecordingFile("agent-17.json")
//	...
//	err = debug.ServeRecording(ctx, "", rec) // http://127.0.0.1:7777/
func ServeRecording(ctx context.Context, addr string, rec *Recording) error {
	return listenAndServe(ctx, addr, slog.Default(), "", rec.Handler())
}

// parseRecording decodes and checks a recording.
func parseRecording(raw []byte) (*exportView, error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, errors.New("want a JSON object")
		}
		return nil, fmt.Errorf("bad JSON: %w", err)
	}
	var format string
	if f, ok := top["format"]; !ok || json.Unmarshal(f, &format) != nil || format == "" {
		return nil, fmt.Errorf("no format field (want %q)", RecordingFormat)
	}
	if format != RecordingFormat {
		return nil, fmt.Errorf("format %q, want %q", truncate(format, 40), RecordingFormat)
	}
	for _, k := range []string{"agent", "tree", "base", "ticks"} {
		if v, ok := top[k]; !ok || string(v) == "null" {
			return nil, fmt.Errorf("missing %s", k)
		}
	}
	var ev exportView
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("bad recording: %w", err)
	}
	if err := ev.check(); err != nil {
		return nil, err
	}
	ev.normalize()
	return &ev, nil
}

// check checks a decoded recording (see LoadRecording). The statuses
// before the first tick of a recording without ticks may be left empty.
func (ev *exportView) check() error {
	n, err := checkTree(ev.Tree)
	if err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	if ev.Base == "" && len(ev.Ticks) == 0 {
		// An agent nobody watched: no statuses at all.
		ev.Base = strings.Repeat(string(stNever), n)
	}
	if err := checkLetters(ev.Base, n, false); err != nil {
		return fmt.Errorf("base: %w", err)
	}
	for i := range ev.Ticks {
		t := &ev.Ticks[i]
		if i > 0 && t.Seq != ev.Ticks[i-1].Seq+1 {
			return fmt.Errorf("ticks: record %d follows record %d (want consecutive records)", t.Seq, ev.Ticks[i-1].Seq)
		}
		if err := checkTick(t, n); err != nil {
			return fmt.Errorf("ticks[%d] (record %d): %w", i, t.Seq, err)
		}
	}
	if rows := len(ev.Stats.Nodes); rows != 0 && rows != n {
		return fmt.Errorf("stats: %d rows for %d nodes", rows, n)
	}
	return nil
}

// checkTree checks that the nodes are numbered in pre-order from a root,
// each linked to nodes of the tree consistently, and returns their count.
func checkTree(td *treeDesc) (int, error) {
	n := len(td.Nodes)
	if n == 0 {
		return 0, errors.New("no nodes")
	}
	for i := range td.Nodes {
		nd := &td.Nodes[i]
		switch {
		case nd.ID != i:
			return 0, fmt.Errorf("node %d has id %d", i, nd.ID)
		case i == 0 && (nd.Parent != -1 || nd.GuardOf != -1):
			return 0, errors.New("node 0 is not the root")
		case nd.Parent < -1 || nd.Parent >= i:
			return 0, fmt.Errorf("node %d: parent %d is not an earlier node", i, nd.Parent)
		case nd.GuardOf < -1 || nd.GuardOf >= i:
			return 0, fmt.Errorf("node %d: guards node %d, not an earlier node", i, nd.GuardOf)
		case nd.Guard != -1 && (nd.Guard <= i || nd.Guard >= n || td.Nodes[nd.Guard].GuardOf != i):
			return 0, fmt.Errorf("node %d: bad guard %d", i, nd.Guard)
		}
		for _, c := range nd.Children {
			if c <= i || c >= n || td.Nodes[c].Parent != i {
				return 0, fmt.Errorf("node %d: bad child %d", i, c)
			}
		}
	}
	return n, nil
}

// checkLetters checks a status string: a letter per node, upper case
// (visited in the tick) only where visited is allowed.
func checkLetters(st string, n int, visited bool) error {
	if len(st) != n {
		return fmt.Errorf("%d status letters for %d nodes", len(st), n)
	}
	valid := "rsfh."
	if visited {
		valid += "RSFH"
	}
	if i := strings.IndexFunc(st, func(c rune) bool { return !strings.ContainsRune(valid, c) }); i >= 0 {
		return fmt.Errorf("node %d: status letter %q is not one of %q", i, st[i], valid)
	}
	return nil
}

// checkTick checks one recorded tick of a tree of n nodes.
func checkTick(t *tickView, n int) error {
	if t.Seq == 0 {
		return errors.New("record numbers start at 1")
	}
	if err := checkLetters(t.Nodes, n, true); err != nil {
		return fmt.Errorf("nodes: %w", err)
	}
	switch t.Status {
	case "running", "success", "failure", "invalid":
	default:
		return fmt.Errorf("root status %q", truncate(t.Status, 40))
	}
	inTree := func(x int) bool { return x >= 0 && x < n }
	for _, p := range t.Running {
		for _, x := range p {
			if !inTree(x) {
				return fmt.Errorf("running path through node %d: no such node", x)
			}
		}
	}
	for j, e := range t.Events {
		switch e.Kind {
		case "start", "result", "halt", "abort", "eval":
		default:
			return fmt.Errorf("event %d: kind %q", j, truncate(e.Kind, 40))
		}
		if !inTree(int(e.Node)) || e.Cond != nil && !inTree(int(*e.Cond)) {
			return fmt.Errorf("event %d: node out of the tree", j)
		}
	}
	for _, x := range t.ErrorNodes {
		if !inTree(int(x)) {
			return fmt.Errorf("error at node %d: no such node", x)
		}
	}
	return nil
}

// normalize fills the lists a recording may leave out, so that the page
// gets lists.
func (ev *exportView) normalize() {
	for i := range ev.Tree.Nodes {
		if ev.Tree.Nodes[i].Children == nil {
			ev.Tree.Nodes[i].Children = []int{}
		}
	}
	for i := range ev.Ticks {
		t := &ev.Ticks[i]
		if t.Running == nil {
			t.Running = [][]int{}
		}
		if t.Events == nil {
			t.Events = []jsonEvent{}
		}
		if t.Local == nil {
			t.Local = []bbEntry{}
		}
		if t.Global == nil {
			t.Global = []bbEntry{}
		}
	}
	if ev.Stats.Nodes == nil {
		ev.Stats.Nodes = [][8]float64{}
	}
	if ev.Stats.Columns == nil {
		ev.Stats.Columns = statsColumns
	}
}
