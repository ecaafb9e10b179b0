package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const formatsDir = "../../testdata/formats/"

func TestConvertCommand(t *testing.T) {
	dir := t.TempDir()
	xml := filepath.Join(dir, "guard.xml")
	t.Run("b3 to BT.CPP by extension", func(t *testing.T) {
		_, errOut, code := runCLI(t, "convert", formatsDir+"b3/project.b3.json", xml)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		data, _ := os.ReadFile(xml)
		if !strings.Contains(string(data), `<root BTCPP_format="4" main_tree_to_execute="Guard">`) {
			t.Fatalf("output:\n%s", data)
		}
	})
	t.Run("BT.CPP to native YAML, then validate", func(t *testing.T) {
		yaml := filepath.Join(dir, "guard.yaml")
		if _, errOut, code := runCLI(t, "convert", xml, yaml); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		out, _, code := runCLI(t, "validate", "-allow-unknown", yaml)
		if code != 0 || !strings.HasPrefix(out, "ok: ") {
			t.Fatalf("validate: exit %d: %s", code, out)
		}
	})
	t.Run("explicit formats and standard output", func(t *testing.T) {
		out, errOut, code := runCLI(t, "convert", "-from", "btcpp", xml, "-", "-to", "b3")
		if code != 0 || !strings.Contains(out, `"scope": "project"`) {
			t.Fatalf("exit %d: %s%s", code, out, errOut)
		}
	})
	t.Run("standard output needs -to", func(t *testing.T) {
		if _, errOut, code := runCLI(t, "convert", xml, "-"); code != 2 || !strings.Contains(errOut, "-to") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("load errors are printed one per line", func(t *testing.T) {
		_, errOut, code := runCLI(t, "convert", formatsDir+"btcpp/err-skipif.xml", filepath.Join(dir, "x.json"))
		if code != 1 || !strings.Contains(errOut, "scripting attribute _skipIf") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("inexpressible trees fail", func(t *testing.T) {
		in := writeFile(t, dir, "list.json", `{"type": "Set", "key": "k", "value": [1, 2]}`)
		_, errOut, code := runCLI(t, "convert", in, filepath.Join(dir, "list.xml"))
		if code != 1 || !strings.Contains(errOut, "cannot be written in BT.CPP XML") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("unknown output extension", func(t *testing.T) {
		if _, errOut, code := runCLI(t, "convert", xml, filepath.Join(dir, "x.txt")); code != 1 || !strings.Contains(errOut, "-to") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("usage", func(t *testing.T) {
		if _, _, code := runCLI(t, "convert", xml); code != 2 {
			t.Fatalf("exit %d", code)
		}
	})
}

func TestRenderCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"render", formatsDir + "b3/ext.b3.json"}, "    `-- patrol (Sequence) [guarded]\n        |-- guard: not tired (Check)"},
		{[]string{"render", formatsDir + "btcpp/basic.xml", "-format", "dot"}, "digraph arbor {"},
		{[]string{"render", "-format", "mermaid", formatsDir + "btcpp/basic.xml"}, "flowchart TD"},
		{[]string{"render", "../../examples/sentry.yaml"}, "(main tree)"},
	} {
		out, errOut, code := runCLI(t, c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, output:\n%s%s", c.args, code, out, errOut)
		}
	}
	if _, _, code := runCLI(t, "render", formatsDir+"b3/ext.b3.json", "-format", "svg"); code != 2 {
		t.Errorf("unknown style: exit %d", code)
	}
	if _, errOut, code := runCLI(t, "render", formatsDir+"b3/err-cycle.b3.json"); code != 1 || !strings.Contains(errOut, "reached twice") {
		t.Errorf("load error: exit %d: %s", code, errOut)
	}
}

func TestTestCommandSeesTreeFormats(t *testing.T) {
	out, _, code := runCLI(t, "test", formatsDir)
	if code != 0 || !strings.Contains(out, " 0 failed\n") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
