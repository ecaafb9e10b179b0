package village

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
	"github.com/arborbt/arbor/format/btcpp"
)

var updatePalette = flag.Bool("update", false, "rewrite the editors' palettes palette.xml and palette.b3.json")

// The palettes committed for designers (palette.xml for Groot2,
// palette.b3.json for the Behavior3 editor) are those of the village's
// node types. After changing Register:
//
//	go test ./examples/village -run Palette -update
func TestPalette(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	for file, write := range map[string]func(*arbor.Registry) ([]byte, error){
		"palette.xml":     btcpp.Models,
		"palette.b3.json": b3.NodeExport,
	} {
		data, err := write(reg)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if *updatePalette {
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(old, data) {
			t.Errorf("%s is not up to date (%v): go test ./examples/village -run Palette -update", file, err)
		}
	}
}

// The village's trees, as Groot2 and the Behavior3 editor would save them
// with the palettes, load and compile.
func TestPaletteLoadsWithTheTrees(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := Register(reg); err != nil {
		t.Fatal(err)
	}
	palette, err := os.ReadFile("palette.b3.json")
	if err != nil {
		t.Fatal(err)
	}
	var defs []any
	if err := json.Unmarshal(palette, &defs); err != nil {
		t.Fatal(err)
	}
	model := regexp.MustCompile(`(?s)\s*<TreeNodesModel>.*</TreeNodesModel>`)
	for _, name := range []string{"villager.yaml", "monster.yaml"} {
		doc, err := arbor.LoadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// BT.CPP: the tree with an include of palette.xml instead of its
		// own model.
		data, err := btcpp.ExportWith(doc, btcpp.ExportOptions{Registry: reg})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		xml := model.ReplaceAllString(string(data), "")
		xml = strings.Replace(xml, "\">\n", "\">\n  <include path=\"palette.xml\"/>\n", 1)
		if strings.Contains(xml, "TreeNodesModel") || !strings.Contains(xml, `<include path="palette.xml"/>`) {
			t.Fatalf("%s: the model is not replaced by the include:\n%s", name, xml)
		}
		loaded, err := btcpp.LoadWith([]byte(xml), btcpp.Options{Dir: "."})
		if err == nil {
			_, err = arbor.Compile(loaded, reg)
		}
		if err != nil {
			t.Errorf("%s as BT.CPP XML with palette.xml: %v", name, err)
		}
		// Behavior3: the project with the node export as its custom nodes.
		data, err = b3.ExportWith(doc, b3.ExportOptions{Registry: reg})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var project map[string]any
		if err := json.Unmarshal(data, &project); err != nil {
			t.Fatal(err)
		}
		project["custom_nodes"] = defs
		data, _ = json.Marshal(project)
		if loaded, err = b3.Load(data); err == nil {
			_, err = arbor.Compile(loaded, reg)
		}
		if err != nil {
			t.Errorf("%s as Behavior3 JSON with palette.b3.json: %v", name, err)
		}
	}
}
