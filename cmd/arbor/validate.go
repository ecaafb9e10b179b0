package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/fsm"
	"github.com/arborbt/arbor/internal/rawdoc"
)

// cmdValidate implements "arbor validate FILE".
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var palettes typesFlags
	fs.Var(&palettes, "types", typesUsage)
	allow := fs.Bool("allow-unknown", false, "accept node types that are not built in, taking any parameters: as actions (conditions, for types used in guards; stand-in controls and decorators, for types with children)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: arbor validate [-types PALETTE] [-allow-unknown] FILE\n\nChecks a tree file (native JSON/YAML, Behavior3 JSON or BT.CPP XML) and prints every problem, or \"ok\" and the node count.\nThe state machines of a native file's fsm section are checked too.")
		fs.PrintDefaults()
	}
	if code, ok := parseArgs(fs, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fs, "FILE"); msg != "" {
		return usageError(fs, "%s", msg)
	}
	path := fs.Arg(0)
	if hasMachines(path) {
		return validateMachines(path, palettes, *allow, stdout, stderr)
	}
	doc, err := loadTreeFile(path, "")
	if err != nil {
		printErrors(stdout, err)
		return 1
	}
	reg, err := validationRegistry(doc, palettes, *allow)
	if err != nil {
		fmt.Fprintf(stderr, "arbor validate: %v\n", err)
		return 1
	}
	if *allow {
		for _, w := range mockWarnings(doc, nil) {
			fmt.Fprintf(stdout, "warning: %s: %s\n", path, w)
		}
	}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		printErrors(stdout, fmt.Errorf("%s: %w", path, err))
		validateHint(doc, reg, palettes, *allow, stderr)
		return 1
	}
	fmt.Fprintf(stdout, "ok: %s: tree %q, %s\n", path, tree.Name(), plural(tree.Len(), "node"))
	return 0
}

// validateHint says, after the load errors of a tree checked without
// -allow-unknown, which of its node types are the program's own and how
// to check them (-types, -allow-unknown).
func validateHint(doc *arbor.Document, reg *arbor.Registry, palettes []string, allow bool, stderr io.Writer) {
	if allow {
		return
	}
	how := "-types PALETTE checks them against the program's palette (btcpp.Models or b3.NodeExport writes one), -allow-unknown accepts them with any parameters (as actions, conditions in guards, or stand-ins for types with children)"
	if len(palettes) > 0 {
		how = "the palette does not declare them; -allow-unknown accepts them with any parameters (as actions, conditions in guards, or stand-ins for types with children)"
	}
	if hint := programTypesHint(doc, reg, how); hint != "" {
		fmt.Fprintf(stderr, "arbor validate: %s\n", hint)
	}
}

// validationRegistry returns the registry trees are checked with: the
// built-ins, the types the palettes declare, and with allow mocks for the
// document's other unknown types.
func validationRegistry(doc *arbor.Document, palettes []string, allow bool) (*arbor.Registry, error) {
	reg := arbor.NewRegistry()
	if err := registerPalettes(reg, palettes, nil); err != nil {
		return nil, err
	}
	if allow && doc != nil {
		if err := mockUnknown(reg, doc, nil, false); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// hasMachines reports whether path is a native file with an fsm section.
func hasMachines(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".json" && ext != ".yaml" && ext != ".yml" {
		return false
	}
	data, err := rawdoc.ReadFile(path, rawdoc.DefaultMaxBytes)
	if err != nil {
		return false
	}
	v, err := rawdoc.Parse(data, ext != ".json", rawdoc.Limits{})
	return err == nil && v.Get("fsm") != nil
}

// validateMachines checks a native file with state machines: its trees,
// if any, and every machine of its fsm section compiled with them.
func validateMachines(path string, palettes []string, allow bool, stdout, stderr io.Writer) int {
	doc, err := fsm.LoadFile(path)
	if err != nil {
		printErrors(stdout, err)
		return 1
	}
	reg, err := validationRegistry(doc.Trees, palettes, allow)
	if err != nil {
		fmt.Fprintf(stderr, "arbor validate: %v\n", err)
		return 1
	}
	var opts []fsm.CompileOption
	if allow {
		opts = append(opts, fsm.WithFuncs(mockFuncs(doc)))
	}
	code := 0
	if doc.Trees != nil && len(doc.Trees.Trees) > 0 {
		tree, err := arbor.Compile(doc.Trees, reg)
		if err != nil {
			printErrors(stdout, fmt.Errorf("%s: %w", path, err))
			validateHint(doc.Trees, reg, palettes, allow, stderr)
			return 1
		}
		fmt.Fprintf(stdout, "ok: %s: tree %q, %s\n", path, tree.Name(), plural(tree.Len(), "node"))
	}
	for _, name := range doc.MachineNames() {
		def, err := doc.Compile(name, reg, opts...)
		if err != nil {
			printErrors(stdout, fmt.Errorf("%s: %w", path, err))
			code = 1
			continue
		}
		for _, w := range def.Warnings() {
			fmt.Fprintf(stdout, "warning: %s: %v\n", path, w)
		}
		fmt.Fprintf(stdout, "ok: %s: state machine %q, %s\n", path, name, plural(len(def.States()), "state"))
	}
	return code
}

// printErrors prints each load error on its own line, after what err
// wraps them with (the file's name: "load tree.json: ", "tree.json: ").
func printErrors(w io.Writer, err error) {
	var les arbor.LoadErrors
	if !errors.As(err, &les) || len(les) == 0 {
		fmt.Fprintln(w, err)
		return
	}
	prefix, wrapped := strings.CutSuffix(err.Error(), les.Error())
	if !wrapped {
		prefix = ""
	}
	for _, e := range les {
		fmt.Fprintf(w, "%s%v\n", prefix, e)
	}
}

// mockFuncs returns no-op callbacks and false conditions for every name the
// document's machines use (validate -allow-unknown).
func mockFuncs(doc *fsm.Document) fsm.Funcs {
	f := fsm.Funcs{Calls: map[string]func(*fsm.Ctx){}, Conds: map[string]func(*fsm.Ctx) bool{}}
	calls := func(cs []fsm.Call) {
		for _, c := range cs {
			if c.Name != "" {
				f.Calls[c.Name] = func(*fsm.Ctx) {}
			}
		}
	}
	var cond func(c *fsm.Cond)
	cond = func(c *fsm.Cond) {
		if c == nil {
			return
		}
		if c.Kind == fsm.CondNamed {
			f.Conds[c.Name] = func(*fsm.Ctx) bool { return false }
		}
		for _, x := range c.Conds {
			cond(x)
		}
	}
	var machine func(m *fsm.Machine)
	trans := func(ts []*fsm.Transition) {
		for _, t := range ts {
			cond(t.When)
			calls(t.Do)
		}
	}
	machine = func(m *fsm.Machine) {
		if m == nil {
			return
		}
		trans(m.Any)
		for _, st := range m.States {
			calls(st.Enter)
			calls(st.Update)
			calls(st.Exit)
			trans(st.Transitions)
			machine(st.Sub)
		}
	}
	for _, name := range doc.MachineNames() {
		machine(doc.Machines[name])
	}
	return f
}
