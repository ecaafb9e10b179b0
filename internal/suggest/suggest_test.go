package suggest

import "testing"

func TestClosest(t *testing.T) {
	cases := []struct {
		name  string
		cands []string
		want  string
	}{
		{"Atack", []string{"Attack", "Sequence"}, "Attack"},
		{"sequense", []string{"Sequence", "Selector"}, "Sequence"},
		{"Zzzzzz", []string{"Attack", "Sequence"}, ""},
		{"x", nil, ""},
		{"Wiat", []string{"Wait", "Set"}, "Wait"},      // a swap is one edit
		{"Flee", []string{"Set", "Check", "Wait"}, ""}, // 3 edits from Set: not a typo
		{"Bite", []string{"Set", "Wait"}, ""},          // 2 edits, too many for 4 letters
		{"Paralel", []string{"Parallel", "Repeat"}, "Parallel"},
		{"ReactivSequense", []string{"ReactiveSequence", "Sequence"}, "ReactiveSequence"},
	}
	for _, c := range cases {
		if got := Closest(c.name, c.cands); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	for _, d := range []struct {
		a, b string
		want int
	}{{"kitten", "sitting", 3}, {"ab", "ba", 1}, {"abc", "", 3}, {"", "", 0}, {"ca", "abc", 3}} {
		if got := Distance(d.a, d.b); got != d.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", d.a, d.b, got, d.want)
		}
	}
}
