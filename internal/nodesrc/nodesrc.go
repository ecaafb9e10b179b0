// Package nodesrc lets the importers of package format record, on the
// arbor.Node values they make, what a file in another format wrote for a
// node: its type and the names of the parameters Arbor reads under other
// names (BT.CPP's success_count is Parallel's success, Behavior3's maxLoop
// is Repeat's count). Compile names them too when it reports a bad
// parameter, and the file's type in every error about a node whose type
// it mapped (Fallback for a Selector), so that the message speaks of what
// the file says. Package
// arbor sets Set when it initializes (it cannot be imported from here).
package nodesrc

// Set records on n (an *arbor.Node) the type the file wrote and, for each
// parameter, the file's name for it (Arbor name → file name); nothing when
// the type is n's and no parameter is renamed.
var Set func(n any, typ string, params map[string]string)

// Record is Set when package arbor has set it, else nothing.
func Record(n any, typ string, params map[string]string) {
	if Set != nil && typ != "" {
		Set(n, typ, params)
	}
}

// SetTypeNames records on doc (an *arbor.Document) the node types its
// file's format knows by name (Behavior3's Succeeder, BT.CPP's
// AlwaysSuccess), so that Compile suggests them for a misspelt type.
var SetTypeNames func(doc any, names []string)

// TypeNames is SetTypeNames when package arbor has set it, else nothing.
func TypeNames(doc any, names []string) {
	if SetTypeNames != nil {
		SetTypeNames(doc, names)
	}
}
