// Package scenario reads and runs scenario files: declarative tests of
// behavior trees (scenario.md). A scenario ticks one tree step by step with
// scripted mock actions and blackboard values, and checks each tick's
// status, trace of mock events and blackboard. `arbor test` is built on it.
//
// Choices scenario.md leaves open:
//   - A step's set is applied before its delete, whatever their order in
//     the file (a key both set and deleted ends up absent).
//   - tickMs 0 is a frozen clock: every tick happens at time 0.
//   - A scenario or step field given as null counts as left out ("status":
//     null is not checked), as JSON writers often spell an unset field.
//   - YAML files may use anchors, aliases and merge keys (<<); unquoted
//     dates are strings, as they would be in JSON.
//   - A file with "scenarios" may also have "name", "description" and
//     "comment" (strings, for readers).
//   - treeFormat applies to an inline tree too, when a format package
//     added it with AddInlineTreeFormat (package format adds b3, a
//     Behavior3 export written as an object, and btcpp, the XML written
//     as a string); any other treeFormat with tree is an error. A tree
//     that is native (a root node with "type", a document with "format"
//     or a "trees" object) is read as native whatever treeFormat says,
//     as scenario.md has it.
package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/rawdoc"
)

// Scenario is one parsed scenario.
type Scenario struct {
	Name        string
	Description string
	File        string // the file it was read from

	tree       *rawdoc.Value // inline tree: a native document, or another treeFormat's (see AddInlineTreeFormat)
	TreeFile   string        // path relative to File
	TreeFormat string        // "arbor" (default), "b3" or "btcpp"; for treeFile, and for an inline tree

	LoadError    string // expected load error text; "" when the tree must load
	hasLoadError bool

	Mocks      map[string][]arbor.Status
	Conditions map[string]string
	Blackboard []KV
	TickMs     float64
	Steps      []Step

	Halt         bool
	HaltTrace    []string
	hasHaltTrace bool
}

// KV is a blackboard key and value (nil value: absent/delete).
type KV struct {
	Key   string
	Value any
}

// Step is one entry of "ticks".
type Step struct {
	Set        []KV
	Delete     []string
	Repeat     int
	Status     arbor.Status // Invalid: not checked
	Trace      []string     // nil: not checked
	Blackboard []KV         // nil: not checked
	hasTrace   bool
}

// TreeLoader loads a tree file of a non-native format into a document.
type TreeLoader func(path string) (*arbor.Document, error)

// loaders holds the tree formats other packages add (see AddTreeFormat).
var loaders = map[string]TreeLoader{}

// AddTreeFormat makes treeFormat name loadable through loader. Format
// packages call it so that scenario files can use their files.
func AddTreeFormat(name string, loader TreeLoader) { loaders[name] = loader }

// InlineTreeLoader loads a tree of a non-native format written inside a
// scenario file ("tree" with a treeFormat): data is the JSON text of the
// tree when it is an object (a Behavior3 export), the text itself when it
// is a string (BT.CPP XML); dir is the scenario file's directory, which
// relative paths in the tree (includes) start from.
type InlineTreeLoader func(data []byte, dir string) (*arbor.Document, error)

// inlineLoaders holds the formats a scenario may write inline.
var inlineLoaders = map[string]InlineTreeLoader{}

// AddInlineTreeFormat makes treeFormat name readable from a scenario's
// "tree" through loader (without it, treeFormat name is for treeFile
// only). Format packages call it.
func AddInlineTreeFormat(name string, loader InlineTreeLoader) { inlineLoaders[name] = loader }

// ParseFile reads the scenarios of one file.
func ParseFile(path string) ([]*Scenario, error) {
	if strings.EqualFold(filepath.Ext(path), ".xml") {
		// Rather than a JSON syntax error on its first "<".
		return nil, errors.New("this is an XML tree file, not a scenario (scenario files are .json, .yaml or .yml and may load it with treeFile; check it with arbor validate, tick it with arbor run)")
	}
	data, err := rawdoc.ReadFile(path, rawdoc.DefaultMaxBytes) // not all of /dev/zero
	if err != nil {
		return nil, err
	}
	return Parse(data, arbor.IsYAMLPath(path), path)
}

// Parse reads scenarios from JSON or YAML data; file names the source for
// treeFile resolution and messages.
func Parse(data []byte, yaml bool, file string) ([]*Scenario, error) {
	v, err := rawdoc.Parse(data, yaml, rawdoc.Limits{})
	if err != nil {
		return nil, err
	}
	if isNodeExport(v) {
		return nil, errors.New("this is a Behavior3 node export (node definitions, \"scope\": \"node\", for the editor's palette), not a scenario")
	}
	if v.Kind != rawdoc.Object {
		return nil, fmt.Errorf("a scenario file must be an object, got a %s", v.Kind)
	}
	if isTreeDocument(v) {
		return nil, errors.New("this is a tree document, not a scenario (check it with arbor validate, tick it with arbor run)")
	}
	// Duplicates inside embedded trees are load errors of the scenario,
	// reported with node paths when the tree loads.
	if d := rawdoc.FirstDuplicate(v, "tree"); d != nil {
		return nil, rawdoc.DuplicateError(d)
	}
	if list := v.Get("scenarios"); list != nil {
		// Beside the list, the suite may have a name, a description and a
		// comment (text for readers).
		for _, f := range v.Fields {
			switch f.Key {
			case "scenarios":
			case "name", "description", "comment":
				if f.Val.Kind != rawdoc.String && f.Val.Kind != rawdoc.Null {
					return nil, errAt(f.Val, "%s must be a string", f.Key)
				}
			default:
				return nil, errAt(f.Val, "unknown key %q beside \"scenarios\" (a file with a list of scenarios may also have name, description and comment)", f.Key)
			}
		}
		if list.Kind != rawdoc.List {
			return nil, fmt.Errorf("line %d: scenarios must be a list", list.Line)
		}
		var out []*Scenario
		for i, sv := range list.List {
			s, err := parseScenario(sv, file)
			if err != nil {
				return nil, fmt.Errorf("scenarios[%d]: %w", i, err)
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, err := parseScenario(v, file)
	if err != nil {
		return nil, err
	}
	return []*Scenario{s}, nil
}

type fieldErr struct {
	line int
	msg  string
}

func (e *fieldErr) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func errAt(v *rawdoc.Value, format string, args ...any) error {
	return &fieldErr{line: v.Line, msg: fmt.Sprintf(format, args...)}
}

func parseScenario(v *rawdoc.Value, file string) (*Scenario, error) {
	if v.Kind != rawdoc.Object {
		return nil, errAt(v, "a scenario must be an object")
	}
	s := &Scenario{File: file, TickMs: 100, TreeFormat: "arbor"}
	for _, f := range v.Fields {
		val := f.Val
		var err error
		if val.Kind == rawdoc.Null && f.Key != "name" {
			// null is the field left out (the key is still checked).
			if !scenarioFields[f.Key] {
				return nil, errAt(val, "unknown scenario field %q", f.Key)
			}
			continue
		}
		switch f.Key {
		case "name":
			s.Name, err = str(val, "name")
		case "description":
			s.Description, err = str(val, "description")
		case "comment":
		case "tree":
			// A string holds a tree of another treeFormat (checked below,
			// treeFormat may come later).
			if val.Kind != rawdoc.Object && val.Kind != rawdoc.String {
				err = errAt(val, "tree must be a tree document or a root node")
			}
			s.tree = val
		case "treeFile":
			s.TreeFile, err = str(val, "treeFile")
		case "treeFormat":
			s.TreeFormat, err = str(val, "treeFormat")
		case "loadError":
			s.LoadError, err = str(val, "loadError")
			s.hasLoadError = true
		case "mocks":
			s.Mocks, err = parseMocks(val)
		case "conditions":
			s.Conditions, err = parseConditions(val)
		case "blackboard":
			s.Blackboard, err = parseKVs(val, "blackboard")
		case "tickMs":
			// 0 is a frozen clock: every tick happens at time 0.
			if val.Kind != rawdoc.Number || !(val.Num >= 0) || math.IsInf(val.Num, 1) {
				err = errAt(val, "tickMs must be a finite number ≥ 0")
			}
			s.TickMs = val.Num
		case "ticks":
			s.Steps, err = parseSteps(val)
		case "halt":
			if val.Kind != rawdoc.Bool {
				err = errAt(val, "halt must be true or false")
			}
			s.Halt = val.Bool
		case "haltTrace":
			s.HaltTrace, err = strList(val, "haltTrace")
			s.hasHaltTrace = true
		default:
			err = errAt(val, "unknown scenario field %q", f.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case s.Name == "":
		return nil, errAt(v, "a scenario needs a name")
	case s.tree == nil && s.TreeFile == "":
		return nil, fmt.Errorf("scenario %q: needs tree or treeFile", s.Name)
	case s.tree != nil && s.TreeFile != "":
		return nil, fmt.Errorf("scenario %q: has both tree and treeFile", s.Name)
	case s.hasLoadError && len(s.Steps) > 0:
		return nil, fmt.Errorf("scenario %q: has both loadError and ticks", s.Name)
	case s.hasHaltTrace && !s.Halt:
		return nil, fmt.Errorf("scenario %q: haltTrace needs \"halt\": true", s.Name)
	case s.tree != nil && s.tree.Kind == rawdoc.String && (s.TreeFormat == "" || s.TreeFormat == "arbor"):
		return nil, errAt(s.tree, "tree must be a tree document or a root node (a string holds a tree of another treeFormat, such as btcpp XML)")
	}
	ticks := 0
	for _, st := range s.Steps {
		ticks += st.Repeat
	}
	if math.Round(float64(ticks)*s.TickMs*1e6) >= 1<<63 {
		// The clock counts int64 nanoseconds.
		return nil, fmt.Errorf("scenario %q: %d ticks of %v ms go past the clock's range (about 292 years)", s.Name, ticks, s.TickMs)
	}
	return s, nil
}

// scenarioFields and stepFields are the fields of a scenario and of a
// step; one given as null counts as left out.
var (
	scenarioFields = map[string]bool{"name": true, "description": true, "comment": true, "tree": true, "treeFile": true,
		"treeFormat": true, "loadError": true, "mocks": true, "conditions": true, "blackboard": true, "tickMs": true,
		"ticks": true, "halt": true, "haltTrace": true}
	stepFields = map[string]bool{"set": true, "delete": true, "repeat": true, "status": true, "trace": true,
		"blackboard": true, "comment": true}
)

func str(v *rawdoc.Value, what string) (string, error) {
	if v.Kind != rawdoc.String {
		return "", errAt(v, "%s must be a string", what)
	}
	return v.Str, nil
}

func strList(v *rawdoc.Value, what string) ([]string, error) {
	if v.Kind != rawdoc.List {
		return nil, errAt(v, "%s must be a list of strings", what)
	}
	out := make([]string, 0, len(v.List))
	for _, e := range v.List {
		s, err := str(e, what+" entry")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func parseMocks(v *rawdoc.Value) (map[string][]arbor.Status, error) {
	if v.Kind != rawdoc.Object {
		return nil, errAt(v, "mocks must be an object of type name → script")
	}
	out := make(map[string][]arbor.Status, len(v.Fields))
	for _, f := range v.Fields {
		entries, err := strList(f.Val, "mock script")
		if err != nil {
			return nil, err
		}
		if len(entries) == 0 {
			return nil, errAt(f.Val, "mock %q: empty script", f.Key)
		}
		for _, e := range entries {
			st, ok := arbor.ParseStatus(e)
			if !ok {
				return nil, errAt(f.Val, "mock %q: script entry %q is not success, failure or running", f.Key, e)
			}
			out[f.Key] = append(out[f.Key], st)
		}
	}
	return out, nil
}

func parseConditions(v *rawdoc.Value) (map[string]string, error) {
	if v.Kind != rawdoc.Object {
		return nil, errAt(v, "conditions must be an object of type name → blackboard key")
	}
	out := make(map[string]string, len(v.Fields))
	for _, f := range v.Fields {
		k, err := str(f.Val, "condition key")
		if err != nil {
			return nil, err
		}
		out[f.Key] = k
	}
	return out, nil
}

func parseKVs(v *rawdoc.Value, what string) ([]KV, error) {
	if v.Kind != rawdoc.Object {
		return nil, errAt(v, "%s must be an object of key → value", what)
	}
	out := make([]KV, 0, len(v.Fields))
	for _, f := range v.Fields {
		out = append(out, KV{Key: f.Key, Value: f.Val.Interface()})
	}
	return out, nil
}

func parseSteps(v *rawdoc.Value) ([]Step, error) {
	if v.Kind != rawdoc.List {
		return nil, errAt(v, "ticks must be a list of steps")
	}
	steps := make([]Step, 0, len(v.List))
	for i, sv := range v.List {
		if sv.Kind != rawdoc.Object {
			return nil, errAt(sv, "ticks[%d] must be an object", i)
		}
		st := Step{Repeat: 1}
		for _, f := range sv.Fields {
			val := f.Val
			var err error
			if val.Kind == rawdoc.Null {
				// null is the field left out (the key is still checked).
				if !stepFields[f.Key] {
					return nil, errAt(val, "ticks[%d]: unknown step field %q", i, f.Key)
				}
				continue
			}
			switch f.Key {
			case "set":
				st.Set, err = parseKVs(val, "set")
			case "delete":
				st.Delete, err = strList(val, "delete")
			case "repeat":
				if val.Kind != rawdoc.Number || val.Num < 1 || val.Num != float64(int(val.Num)) || val.Num > 1e7 {
					err = errAt(val, "repeat must be an integer from 1 to 10,000,000")
				}
				st.Repeat = int(val.Num)
			case "status":
				var s string
				if s, err = str(val, "status"); err == nil {
					var ok bool
					if st.Status, ok = arbor.ParseStatus(s); !ok {
						err = errAt(val, "status must be success, failure or running, got %q", s)
					}
				}
			case "trace":
				st.Trace, err = strList(val, "trace")
				st.hasTrace = true
			case "blackboard":
				st.Blackboard, err = parseKVs(val, "blackboard")
			case "comment":
			default:
				err = errAt(val, "ticks[%d]: unknown step field %q", i, f.Key)
			}
			if err != nil {
				return nil, err
			}
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// Collect expands paths (files, or directories searched recursively for
// .json, .yaml and .yml files) into a sorted list of scenario files.
// Directory entries that are tree files (a tree document, or a file some
// scenario names as treeFile) and Behavior3 node exports (an editor's
// palette, such as b3.NodeExport writes) are left out.
func Collect(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || d.Type()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) != 0 {
				return nil // a pipe would block the walk
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".json", ".yaml", ".yml":
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		files = append(files, withoutTreeFiles(found)...)
	}
	sort.Strings(files)
	return files, nil
}

// withoutTreeFiles drops the files that are trees rather than scenarios.
func withoutTreeFiles(files []string) []string {
	referenced := map[string]bool{}
	treeLike := map[string]bool{}
	for _, f := range files {
		data, err := rawdoc.ReadFile(f, rawdoc.DefaultMaxBytes)
		if err != nil {
			continue
		}
		v, err := rawdoc.Parse(data, arbor.IsYAMLPath(f), rawdoc.Limits{})
		if err == nil && isNodeExport(v) {
			treeLike[f] = true
			continue
		}
		if err != nil || v.Kind != rawdoc.Object {
			continue
		}
		if isTreeDocument(v) {
			treeLike[f] = true
			continue
		}
		list := []*rawdoc.Value{v}
		if s := v.Get("scenarios"); s != nil && s.Kind == rawdoc.List {
			list = s.List
		}
		for _, s := range list {
			if tf := s.Get("treeFile"); tf != nil && tf.Kind == rawdoc.String {
				referenced[filepath.Clean(filepath.Join(filepath.Dir(f), tf.Str))] = true
			}
		}
	}
	var out []string
	for _, f := range files {
		if !treeLike[f] && !referenced[filepath.Clean(f)] {
			out = append(out, f)
		}
	}
	return out
}

// isNodeExport reports whether a parsed file is the Behavior3 editor's
// node export: a non-empty list of objects with "scope": "node".
func isNodeExport(v *rawdoc.Value) bool {
	if v.Kind != rawdoc.List || len(v.List) == 0 {
		return false
	}
	for _, e := range v.List {
		if e.Kind != rawdoc.Object {
			return false
		}
		if s := e.Get("scope"); s == nil || s.Kind != rawdoc.String || s.Str != "node" {
			return false
		}
	}
	return true
}

// isTreeDocument reports whether a parsed file is a tree (native or
// Behavior3 JSON) rather than a scenario.
func isTreeDocument(v *rawdoc.Value) bool {
	for _, k := range []string{"name", "scenarios", "ticks", "tree", "treeFile", "loadError"} {
		if v.Get(k) != nil {
			return false
		}
	}
	for _, k := range []string{"trees", "type", "nodes", "scope", "root"} {
		if v.Get(k) != nil {
			return true
		}
	}
	return false
}
