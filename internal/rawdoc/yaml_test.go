package rawdoc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestYAMLMergeKeysAndDates(t *testing.T) {
	tests := []struct {
		name, doc, want, err string
	}{
		{
			name: "one mapping",
			doc:  "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n",
			want: `{"base":{"a":1,"b":2},"x":{"a":1,"b":3}}`,
		},
		{
			name: "explicit key before the merge wins too",
			doc:  "base: &b {a: 1, b: 2}\nx:\n  b: 3\n  <<: *b\n",
			want: `{"base":{"a":1,"b":2},"x":{"a":1,"b":3}}`,
		},
		{
			name: "a list: earlier mappings first",
			doc:  "p: &p {a: 1}\nq: &q {a: 2, c: 3}\nx: {<<: [*p, *q]}\n",
			want: `{"p":{"a":1},"q":{"a":2,"c":3},"x":{"a":1,"c":3}}`,
		},
		{
			name: "an inline mapping",
			doc:  "x: {<<: {a: 1}, b: 2}\n",
			want: `{"x":{"a":1,"b":2}}`,
		},
		{
			name: "nested merges",
			doc:  "p: &p {a: 1}\nq: &q {<<: *p, b: 2}\nx: {<<: *q}\n",
			want: `{"p":{"a":1},"q":{"a":1,"b":2},"x":{"a":1,"b":2}}`,
		},
		{
			name: "a scalar is no mapping",
			doc:  "s: &s 3\nx: {<<: *s}\n",
			err:  "merge key (<<) takes a mapping",
		},
		{
			name: "dates are text",
			doc:  "d: 2024-01-01\nt: 2001-12-14t21:59:43.10-05:00\n",
			want: `{"d":"2024-01-01","t":"2001-12-14t21:59:43.10-05:00"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.doc), true, Limits{})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestYAMLDuplicateKeysBesideMerges(t *testing.T) {
	v, err := Parse([]byte("base: &b {a: 1}\nx:\n  <<: *b\n  c: 1\n  c: 2\n"), true, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	x := v.Get("x")
	if d := FirstDuplicate(x); d == nil || d.Key != "c" {
		t.Errorf("duplicate = %v, want key c", d)
	}
	if d := FirstDuplicate(v.Get("base")); d != nil {
		t.Errorf("merged keys reported as duplicates: %v", d)
	}
}

func TestByteOrderMark(t *testing.T) {
	for _, yaml := range []bool{false, true} {
		doc := "\xEF\xBB\xBF{\"a\": 1}"
		v, err := Parse([]byte(doc), yaml, Limits{})
		if err != nil {
			t.Fatalf("yaml=%v: %v", yaml, err)
		}
		if a := v.Get("a"); a == nil || a.Num != 1 {
			t.Errorf("yaml=%v: a = %v", yaml, a)
		}
	}
}
