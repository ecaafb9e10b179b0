package debug

import (
	"bytes"
	"testing"
)

// FuzzLoadRecording feeds LoadRecording arbitrary bytes, seeded with a
// real export and mutations of it: it must return an error or a recording,
// never panic, and a recording it accepts must load again from the bytes
// it serves.
func FuzzLoadRecording(f *testing.F) {
	_, good := recordedSession(f)
	f.Add(good)
	f.Add([]byte(`{"format":"arbor-debug/1"}`))
	f.Add([]byte(`{"format":"arbor-debug/1","agent":{"id":0},"tree":{"nodes":[]},"ticks":[],"base":""}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := LoadRecording(bytes.NewReader(data))
		if err != nil {
			return
		}
		again, err := LoadRecording(bytes.NewReader(rec.data))
		if err != nil {
			t.Fatalf("a recording that loaded does not load from its own encoding: %v", err)
		}
		if again.Ticks() != rec.Ticks() || again.Agent() != rec.Agent() {
			t.Fatalf("reloaded: %d ticks of agent %d, want %d of %d", again.Ticks(), again.Agent(), rec.Ticks(), rec.Agent())
		}
	})
}
