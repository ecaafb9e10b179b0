package main

// Importing package format registers the Behavior3 ("b3") and
// BehaviorTree.CPP ("btcpp") tree formats with the scenario runner, so
// that `arbor test` loads scenario files with treeFile + treeFormat.
import _ "github.com/arborbt/arbor/format"
