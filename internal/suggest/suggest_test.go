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
	}
	for _, c := range cases {
		if got := Closest(c.name, c.cands); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
}
