package rawdoc

import (
	"strings"
	"testing"
)

func TestLimitMessages(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{100, "100 bytes"},
		{1 << 20, "1048576 bytes (1 MiB)"},
		{16 << 20, "16777216 bytes (16 MiB)"},
		{16<<20 + 1, "16777217 bytes"},
	} {
		if got := Bytes(c.n); got != c.want {
			t.Errorf("Bytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{4, "4"},
		{9999, "9999"},
		{10_000, "10000 (10,000)"},
		{100_000, "100000 (100,000)"},
		{1_234_567, "1234567 (1,234,567)"},
	} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	_, err := Parse(make([]byte, 16<<20+1), false, Limits{})
	if err == nil || !strings.Contains(err.Error(), "over the limit of 16777216 bytes (16 MiB)") {
		t.Errorf("a file over the default limit: %v", err)
	}
}
