package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
)

// A recording of arbor run (-scenario FILE) is a scenario file (scenario.md)
// that expects what the run did: the tree file itself (treeFile, so the
// test checks the designer's file as it changes), the run's mocks as
// scenario mocks and conditions, and each tick's status and trace. It
// turns a run that behaves as wanted into a regression test for arbor test.

// recording is the scenario file arbor run writes, fields in the order of
// scenario.md.
type recording struct {
	Name        string              `json:"name" yaml:"name"`
	Description string              `json:"description" yaml:"description"`
	TreeFile    string              `json:"treeFile" yaml:"treeFile"`
	TreeFormat  string              `json:"treeFormat" yaml:"treeFormat"`
	Mocks       map[string][]string `json:"mocks,omitempty" yaml:"mocks,omitempty"`
	Conditions  map[string]string   `json:"conditions,omitempty" yaml:"conditions,omitempty"`
	Blackboard  map[string]any      `json:"blackboard,omitempty" yaml:"blackboard,omitempty"`
	TickMs      float64             `json:"tickMs" yaml:"tickMs"`
	Ticks       []recordedTick      `json:"ticks" yaml:"ticks"`
}

// recordedTick is one step of a recording.
type recordedTick struct {
	Status string   `json:"status" yaml:"status"`
	Trace  []string `json:"trace" yaml:"trace,flow"`
}

// conditionKey is the blackboard key a recording gives a mocked condition
// type (scenario conditions read one).
func conditionKey(typ string) string { return "mock." + typ }

// newRecording describes the run of the tree file path with the mock types
// of reg (the types the built-in registry does not have): actions with
// their scripts, conditions (types used in guards) with their results.
func newRecording(path, out string, doc *arbor.Document, reg *arbor.Registry, mocks mockFlags, tickMs float64) (*recording, map[string]bool, error) {
	from, err := format.Detect(path)
	if err != nil {
		return nil, nil, err
	}
	if err := noStandIns(doc, reg); err != nil {
		return nil, nil, err
	}
	treeFile, err := relativeTo(out, path)
	if err != nil {
		return nil, nil, err
	}
	// Fail before the run, not after it.
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		return nil, nil, fmt.Errorf("write scenario: %w", err)
	}
	rec := &recording{
		Name:        filepath.Base(path) + " as recorded by arbor run",
		Description: "Written by arbor run -scenario: the statuses and traces of that run, with its mocks.",
		TreeFile:    treeFile, TreeFormat: from, TickMs: tickMs, Ticks: []recordedTick{},
	}
	builtin := arbor.NewRegistry()
	inGuard := guardTypes(doc)
	actions := map[string]bool{}
	used, _ := nodeTypes(doc)
	for _, typ := range reg.Types() {
		if _, scripted := mocks[typ]; builtin.Has(typ) || (!used[typ] && !scripted) {
			continue // a built-in, or a type a palette declares that the tree does not use
		}
		result, ok := mockCondition(typ, inGuard, mocks)
		if reg.Category(typ) == arbor.CategoryCondition { // a palette's condition, used anywhere
			script := mocks[typ]
			result, ok = len(script) == 0 || script[0] == arbor.Success, true
		}
		if ok {
			if rec.Conditions == nil {
				rec.Conditions = map[string]string{}
			}
			rec.Conditions[typ] = conditionKey(typ)
			rec.Blackboard = setValue(rec.Blackboard, conditionKey(typ), result)
			continue
		}
		script := mocks[typ]
		if script == nil {
			script = []arbor.Status{arbor.Success}
		}
		if rec.Mocks == nil {
			rec.Mocks = map[string][]string{}
		}
		for _, s := range script {
			rec.Mocks[typ] = append(rec.Mocks[typ], s.String())
		}
		actions[typ] = true
	}
	return rec, actions, nil
}

// noStandIns refuses a run whose tree has stand-ins for the program's
// types with children: a scenario's mocks are leaves, so no scenario can
// run such a tree.
func noStandIns(doc *arbor.Document, reg *arbor.Registry) error {
	builtin := arbor.NewRegistry()
	_, withChildren := nodeTypes(doc)
	for _, typ := range sortedNames(withChildren) {
		if reg.Has(typ) && !builtin.Has(typ) {
			return fmt.Errorf("-scenario: node type %q has children and runs as a stand-in; scenario mocks are leaves, so a scenario cannot run this tree", typ)
		}
	}
	return nil
}

// relativeTo returns the path of file as seen from the directory of out.
func relativeTo(out, file string) (string, error) {
	absOut, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	absFile, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(filepath.Dir(absOut), absFile)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// write saves the recording as YAML (.yaml, .yml) or JSON (any other name).
func (r *recording) write(out string) error {
	var data []byte
	var err error
	if arbor.IsYAMLPath(out) {
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err = enc.Encode(r); err == nil {
			err = enc.Close()
		}
		data = buf.Bytes()
	} else {
		data, err = json.MarshalIndent(r, "", "  ")
		data = append(data, '\n')
	}
	if err != nil {
		return fmt.Errorf("write scenario %s: %w", out, err)
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return fmt.Errorf("write scenario: %w", err)
	}
	return nil
}

// traceEvent is a node event as a scenario trace writes it, for the mock
// actions (the only nodes a scenario traces); "" for other events.
func traceEvent(a *arbor.Agent, e arbor.Event, actions map[string]bool) string {
	info := a.Tree().Node(int(e.Node))
	if !actions[info.Type] {
		return ""
	}
	switch e.Kind {
	case arbor.EventStart:
		return info.Label() + ":start"
	case arbor.EventResult:
		return info.Label() + ":" + e.Status.String()
	case arbor.EventHalt:
		return info.Label() + ":halt"
	}
	return ""
}

// scenarioNote is what arbor run prints after writing a recording.
func scenarioNote(out string) string {
	return fmt.Sprintf("wrote %s: check it with arbor test %s", out, out)
}
