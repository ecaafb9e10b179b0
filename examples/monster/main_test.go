package main

import (
	"strings"
	"testing"
)

func TestMonster(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"[Alive/Calm → Alive/Alert]",
		"[Alive/Alert → Alive/Calm]",
		"[Alive/Alert → Alive/Combat]; [enter Alive/Combat]; ROARS; chases the hero",
		"BITES the hero",
		"flees; bite interrupted",
		"stops fleeing; [exit Alive/Combat]; [Alive/Combat → Alive/Alert]",
		"stops fleeing; [exit Alive/Combat]; [exit Alive]; [Alive → Dead]; drops 12 gold; [enter Dead]; collapses",
		"the monster's machine ended: success",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "warning") {
		t.Errorf("warnings:\n%s", got)
	}
}
