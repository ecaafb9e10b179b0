package debug

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// keepAlive is how often an idle stream sends a comment line.
const keepAlive = 15 * time.Second

// liveView is the state of a watched agent sent after ticks.
type liveView struct {
	Agent    agentInfo     `json:"agent"`
	Tick     uint64        `json:"tick"`
	Seq      uint64        `json:"seq"`   // newest record
	First    uint64        `json:"first"` // oldest record kept
	Nodes    string        `json:"nodes"`
	Running  [][]int       `json:"running"`
	Events   []jsonEvent   `json:"events"` // of the newest record
	Local    []bbEntry     `json:"agentScope"`
	Global   []bbEntry     `json:"globalScope"`
	Stats    [][8]float64  `json:"stats"`
	Timeline []tickSummary `json:"timeline"` // records newer than the previous message's
	// ErrorNodes are the nodes that reported a node error in the newest
	// record.
	ErrorNodes []int32 `json:"errorNodes,omitempty"`
}

// stream serves Server-Sent Events: "summary" after ticks (agent counts),
// and with ?agent=ID the agent is watched while the stream is open and
// "agent" events carry its state. Updates are sent at most MaxRate times
// a second, however fast the program ticks. For a watched agent removed
// less than Linger ago, the stream sends its last state, then "gone", and
// ends.
func (h *handler) stream(w http.ResponseWriter, r *http.Request) {
	s := h.s
	var wt *watch
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" {
		// Opening a stream starts watching an agent: other sites may not.
		h.fail(w, http.StatusForbidden, "cross-site requests are refused")
		return
	}
	if raw := r.URL.Query().Get("agent"); raw != "" {
		id, err := strconv.Atoi(raw)
		if err != nil || id < 0 {
			h.fail(w, http.StatusBadRequest, "bad agent id %q: want a non-negative integer", truncate(raw, 40))
			return
		}
		s.mu.Lock()
		wt, err = s.acquireLocked(id)
		if err != nil && s.removed[id] != nil {
			// A watched agent removed less than Linger ago (a page reloaded
			// on it): its last state, then "gone".
			wt, err = s.removed[id], nil
		} else if err == nil {
			defer s.release(wt)
		}
		s.mu.Unlock()
		if err != nil {
			h.fail(w, http.StatusNotFound, "%s", noAgentMsg(id))
			return
		}
	}
	rc := http.NewResponseController(w)
	// A stream outlives any write timeout the program's server has.
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.log.Debug("arbor debug: stream deadline", "err", err)
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	interval := time.Duration(float64(time.Second) / s.opts.MaxRate)
	ctx := r.Context()
	var sent streamPos
	var buf bytes.Buffer
	send := func() (more bool) {
		buf.Reset()
		s.mu.Lock()
		sum := s.summaryLocked()
		var live *liveView
		// A watch ends while it has viewers only when its agent is removed:
		// the last update then carries its last records, then "gone".
		gone := wt != nil && wt.gone
		if wt != nil {
			live = s.liveLocked(wt, sent.from(wt))
			sent.seq = wt.seq
		}
		s.mu.Unlock()
		writeEvent(&buf, "summary", sum)
		if live != nil {
			writeEvent(&buf, "agent", live)
		}
		if gone {
			writeEvent(&buf, "gone", map[string]any{"agent": wt.id})
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return false
		}
		if err := rc.Flush(); err != nil {
			return false
		}
		return !gone
	}
	if _, err := fmt.Fprintf(w, "retry: 2000\n\n"); err != nil {
		return
	}
	timer := time.NewTimer(keepAlive)
	defer timer.Stop()
	for {
		ch := s.changed()
		if !send() {
			return
		}
		sent := time.Now()
		// Wait for a tick (or send a keep-alive comment).
		for waiting := true; waiting; {
			timer.Reset(keepAlive)
			select {
			case <-ctx.Done():
				return
			case <-ch:
				waiting = false
			case <-timer.C:
				if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
					return
				}
				if err := rc.Flush(); err != nil {
					return
				}
			}
		}
		// Throttle: at most one update per interval.
		if wait := interval - time.Since(sent); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
	}
}

// liveLocked builds the live view of a watched agent; the timeline part
// holds the records newer than after.
func (s *Session) liveLocked(wt *watch, after uint64) *liveView {
	lv := &liveView{Agent: s.agentInfoLocked(wt.agent), Tick: s.tick, Seq: wt.seq, Nodes: wt.liveStatuses(),
		Events: []jsonEvent{}, Stats: statsOf(wt), Timeline: []tickSummary{}, Local: []bbEntry{}, Global: []bbEntry{}}
	lv.Running = runningPaths(wt.td, lv.Nodes)
	recs := wt.records()
	if len(recs) > 0 {
		lv.First = recs[0].Seq
		newest := recs[len(recs)-1]
		lv.Events = jsonEvents(newest.Events)
		lv.ErrorNodes = newest.Errs
		lv.Local, lv.Global = newest.Local, newest.Global
	} else {
		lv.Local, lv.Global = splitEntries(wt.agent.Blackboard().Entries())
	}
	for _, r := range recs {
		if r.Seq > after {
			lv.Timeline = append(lv.Timeline, summarize(r))
		}
	}
	return lv
}

// writeEvent appends one SSE event with a JSON payload.
func writeEvent(buf *bytes.Buffer, name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(fmt.Sprintf(`{"error":%q}`, err.Error()))
	}
	fmt.Fprintf(buf, "event: %s\ndata: %s\n\n", name, data)
}

// streamPos is how far a stream has sent a watch's records.
type streamPos struct {
	seq     uint64 // the last record sent
	gen     uint64 // of the watch's history generation gen
	started bool
}

// from returns the record after which to send w's records: the last one
// sent, or 0 when w's history started again since (a hot reload: its
// records are counted from 1 again), also when the agent came back to the
// tree of the records sent.
func (p *streamPos) from(w *watch) uint64 {
	if !p.started || w.gen != p.gen {
		p.seq, p.gen, p.started = 0, w.gen, true
	}
	return p.seq
}
