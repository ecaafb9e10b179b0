// Package format is the one entry point to every tree file format Arbor
// reads and writes:
//
//   - "arbor": the native JSON/YAML format (format.md), read by the arbor
//     package itself;
//   - "b3": Behavior3 editor JSON (package format/b3);
//   - "btcpp": BehaviorTree.CPP v4 XML, as Groot2 writes it (package
//     format/btcpp).
//
// Load picks the loader from an explicit format name or from the file:
// .xml is btcpp, .yaml and .yml are arbor, .json is b3 when it looks like a
// Behavior3 export and arbor otherwise. Write and Convert write a document
// in any of them.
//
// Importing the package (even blank) registers "b3" and "btcpp" as
// scenario tree formats, so that scenario files may name treeFile with
// treeFormat b3 or btcpp, or hold such a tree inline (a Behavior3 export
// as an object, BT.CPP XML as a string).
package format

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
	"github.com/arborbt/arbor/format/btcpp"
	"github.com/arborbt/arbor/format/internal/conv"
	"github.com/arborbt/arbor/internal/rawdoc"
	"github.com/arborbt/arbor/scenario"
)

// The format names.
const (
	Arbor = "arbor"
	B3    = "b3"
	BTCPP = "btcpp"
)

// Names returns the format names Load and Write accept.
func Names() []string { return []string{Arbor, B3, BTCPP} }

func init() {
	scenario.AddTreeFormat(B3, b3.LoadFile)
	scenario.AddTreeFormat(BTCPP, btcpp.LoadFile)
	// A scenario's inline tree: a Behavior3 export as a JSON object, BT.CPP
	// XML as a string (includes relative to the scenario file).
	scenario.AddInlineTreeFormat(B3, func(data []byte, _ string) (*arbor.Document, error) {
		doc, err := b3.Load(data)
		if err != nil {
			return nil, fmt.Errorf("tree: %w", err)
		}
		return doc, nil
	})
	scenario.AddInlineTreeFormat(BTCPP, func(data []byte, dir string) (*arbor.Document, error) {
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
			return nil, errors.New("tree: treeFormat btcpp reads XML: write tree as a string holding the XML, or name the XML file with treeFile")
		}
		doc, err := btcpp.LoadWith(data, btcpp.Options{Dir: dir})
		if err != nil {
			return nil, fmt.Errorf("tree: %w", err)
		}
		return doc, nil
	})
}

func checkName(name string) error {
	switch name {
	case Arbor, B3, BTCPP:
		return nil
	}
	return fmt.Errorf("unknown tree format %q (want %s)", name, strings.Join(Names(), ", "))
}

// Detect returns the format of a tree file: from its extension, and for
// .json files (or unknown extensions) from its content.
func Detect(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xml":
		return BTCPP, nil
	case ".yaml", ".yml":
		return Arbor, nil
	}
	data, err := conv.ReadFile(path, conv.MaxBytes)
	if err != nil {
		return "", err
	}
	return DetectData(data), nil
}

// DetectData returns the format of a tree document from its content: XML
// is btcpp, a JSON object with Behavior3 keys (scope, nodes, custom_nodes,
// a list of trees) or a Behavior3 node export is b3, anything else arbor.
func DetectData(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if bytes.HasPrefix(trimmed, []byte("<")) {
		return BTCPP
	}
	if bytes.HasPrefix(trimmed, []byte("{")) || bytes.HasPrefix(trimmed, []byte("[")) {
		if b3.Detect(data) {
			return B3
		}
	}
	return Arbor
}

// LoadTree reads a tree file in any format (detected, see Detect) and
// compiles it with reg (nil: the built-ins only): what arbor.LoadTree does
// for native files. Errors begin with "load PATH: " and wrap the cause:
// the file system's error, or arbor.LoadErrors (errors.As finds them).
func LoadTree(path string, reg *arbor.Registry) (*arbor.Tree, error) {
	doc, err := Load(path, "")
	if err != nil {
		return nil, err
	}
	t, err := arbor.Compile(doc, reg)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return t, nil
}

// Load reads a tree file in the named format ("" = detect it, see
// Detect). Errors name the file and, for problems in the tree, the node's
// path and line.
func Load(path, formatName string) (*arbor.Document, error) {
	if formatName == "" {
		f, err := Detect(path)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", path, err)
		}
		formatName = f
	}
	if err := checkName(formatName); err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	switch formatName {
	case B3:
		return b3.LoadFile(path)
	case BTCPP:
		return btcpp.LoadFile(path)
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		if data, err := conv.ReadFile(path, conv.MaxBytes); err == nil {
			if err := foreign(data); err != nil {
				return nil, fmt.Errorf("load %s: %w", path, err)
			}
		}
	}
	return arbor.LoadFile(path)
}

// foreign recognizes a JSON tree file of an editor Arbor does not read,
// which the native loader would answer with a list of unknown keys:
// zhandouxiaojiji/behavior3editor's, a nested "root" node with a "name"
// (its type) and "args".
func foreign(data []byte) error {
	v, err := rawdoc.Parse(data, false, rawdoc.Limits{MaxBytes: conv.MaxBytes, MaxDepth: conv.MaxDepth})
	if err != nil || v.Kind != rawdoc.Object || v.Get("trees") != nil || v.Get("type") != nil {
		return nil
	}
	if r := v.Get("root"); r != nil && r.Kind == rawdoc.Object && r.Get("name") != nil && r.Get("type") == nil {
		return fmt.Errorf("not a tree format Arbor reads: a \"root\" node object with a \"name\" is the format of zhandouxiaojiji/behavior3editor; Arbor reads its own format, Behavior3 editor (behavior3/behavior3editor) exports and BehaviorTree.CPP XML")
	}
	return nil
}

// Parse reads a tree document from memory in the named format ("" =
// detect it from the content). BT.CPP includes are resolved from the
// current directory.
func Parse(data []byte, formatName string) (*arbor.Document, error) {
	if formatName == "" {
		formatName = DetectData(data)
	}
	if err := checkName(formatName); err != nil {
		return nil, err
	}
	switch formatName {
	case B3:
		return b3.Load(data)
	case BTCPP:
		return btcpp.Load(data)
	}
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); bytes.HasPrefix(t, []byte("{")) {
		if err := foreign(data); err != nil {
			return nil, err
		}
		return arbor.ParseJSON(data)
	}
	return arbor.ParseYAML(data)
}

// Convert writes a document in the named format: "arbor" (native JSON),
// "b3" (a Behavior3 project export) or "btcpp" (BT.CPP v4 XML).
func Convert(doc *arbor.Document, formatName string) ([]byte, error) {
	if err := checkName(formatName); err != nil {
		return nil, err
	}
	switch formatName {
	case B3:
		return b3.Export(doc)
	case BTCPP:
		return btcpp.Export(doc)
	}
	return MarshalArbor(doc, false)
}

// OutputFormat returns the format Write uses for a path when none is
// given: .xml is btcpp, a name ending in .b3.json is b3, .json, .yaml and
// .yml are arbor.
func OutputFormat(path string) (string, error) {
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".xml"):
		return BTCPP, nil
	case strings.HasSuffix(lower, ".b3.json"):
		return B3, nil
	case strings.HasSuffix(lower, ".json"), arbor.IsYAMLPath(lower):
		return Arbor, nil
	}
	return "", fmt.Errorf("cannot tell the output format of %s from its extension (.json, .yaml, .xml, .b3.json); name the format (arbor convert: -to)", path)
}

// Encode returns what Write would write to path: the document in the
// named format ("" = from the extension, see OutputFormat); native
// documents are YAML for .yaml and .yml paths.
func Encode(path string, doc *arbor.Document, formatName string) ([]byte, error) {
	if formatName == "" {
		f, err := OutputFormat(path)
		if err != nil {
			return nil, err
		}
		formatName = f
	}
	if formatName == Arbor {
		return MarshalArbor(doc, arbor.IsYAMLPath(path))
	}
	return Convert(doc, formatName)
}

// Write writes the document to path in the named format ("" = from the
// extension, see OutputFormat).
func Write(path string, doc *arbor.Document, formatName string) error {
	data, err := Encode(path, doc, formatName)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
