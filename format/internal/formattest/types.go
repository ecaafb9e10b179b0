package formattest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
)

// Types describes node type descriptions one per line, for comparisons:
// "MoveTo action: target string required, speed float64 =1.5".
func Types(infos []arbor.TypeInfo) string {
	var b strings.Builder
	for _, info := range infos {
		fmt.Fprintf(&b, "%s %v", info.Name, info.Category)
		if info.Builtin {
			b.WriteString(" builtin")
		}
		if info.AnyParams {
			b.WriteString(" any")
		}
		for i, p := range info.Params {
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			fmt.Fprintf(&b, "%s%s %v", sep, p.Name, p.Type)
			if p.Required {
				b.WriteString(" required")
			}
			if p.Default != nil {
				fmt.Fprintf(&b, " =%v", p.Default)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ProgramTypes returns the descriptions that are not of built-in types.
func ProgramTypes(infos []arbor.TypeInfo) []arbor.TypeInfo {
	var program []arbor.TypeInfo
	for _, info := range infos {
		if !info.Builtin {
			program = append(program, info)
		}
	}
	return program
}

// CheckNamed fails the test when a type read from a palette, or one of
// its parameters, has no name.
func CheckNamed(t *testing.T, infos []arbor.TypeInfo) {
	t.Helper()
	for _, info := range infos {
		if info.Name == "" {
			t.Fatalf("a type without a name: %+v", info)
		}
		for _, p := range info.Params {
			if p.Name == "" {
				t.Fatalf("type %q: a parameter without a name", info.Name)
			}
		}
	}
}
