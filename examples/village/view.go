package village

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/arborbt/arbor/debug"
)

//go:embed static
var static embed.FS

// snapshot is one frame of the world for the canvas.
type snapshot struct {
	Tick      int          `json:"tick"`
	NowMs     float64      `json:"nowMs"`
	Villagers [][4]any     `json:"villagers"` // x, z, activity, dead (0/1)
	Monsters  [][6]any     `json:"monsters"`  // x, z, mode, hp, target x, target z (null when none)
	Acts      [numActs]int `json:"acts"`
	Deaths    int          `json:"deaths"`
	DeadNow   int          `json:"deadNow"`
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// publish makes the snapshot of the current frame (between ticks).
func (w *World) publish() {
	s := snapshot{Tick: w.tick, NowMs: float64(time.Duration(w.tick)*w.step) / float64(time.Millisecond),
		Villagers: make([][4]any, len(w.Villagers)), Monsters: make([][6]any, len(w.Monsters))}
	for i, v := range w.Villagers {
		dead := 0
		if v.Dead {
			dead = 1
			s.DeadNow++
		}
		s.Deaths += v.Deaths
		s.Acts[v.Act]++
		s.Villagers[i] = [4]any{round2(v.Pos.X), round2(v.Pos.Z), v.Act, dead}
	}
	for i, m := range w.Monsters {
		var tx, tz any
		if m.Target >= 0 && (m.Mode == "chase" || m.Mode == "attack") {
			tx, tz = round2(m.TargetPos.X), round2(m.TargetPos.Z)
		}
		s.Monsters[i] = [6]any{round2(m.Pos.X), round2(m.Pos.Z), m.Mode, math.Round(m.HP), tx, tz}
	}
	data, err := json.Marshal(s)
	if err != nil {
		slog.Error("village: snapshot", "err", err)
		return
	}
	w.snapshot.Store(&data)
}

// worldInfo is the static part of the world view.
type worldInfo struct {
	Zones        []Zone          `json:"zones"`
	Bounds       [4]float64      `json:"bounds"` // min x, min z, max x, max z
	Activities   [numActs]string `json:"activities"`
	Villagers    int             `json:"villagers"`
	FirstMonster int             `json:"firstMonster"` // agent id of the first monster
	Lairs        []Vec           `json:"lairs"`
	TickRate     float64         `json:"tickRate"`
	Debugger     string          `json:"debugger"` // URL of the debugger page
}

// Handler serves the world view: a canvas page at "/", its assets, and
// the world's frames as Server-Sent Events (at most 10 a second). The
// debugger is expected at debuggerURL (relative to the page), so that
// clicking a villager opens it there.
func (w *World) Handler(debuggerURL string) http.Handler {
	mux := http.NewServeMux()
	files := http.NotFoundHandler()
	if sub, err := fs.Sub(static, "static"); err == nil {
		files = http.FileServer(http.FS(sub))
	} else {
		slog.Error("village: embedded assets", "err", err)
	}
	mux.HandleFunc("GET /{$}", func(rw http.ResponseWriter, r *http.Request) {
		page, err := static.ReadFile("static/world.html")
		if err != nil {
			http.Error(rw, "page missing", http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.Header().Set("Cache-Control", "no-cache")
		_, _ = rw.Write(page)
	})
	mux.Handle("GET /world/static/", http.StripPrefix("/world/static", files))
	mux.HandleFunc("GET /world/info", func(rw http.ResponseWriter, r *http.Request) {
		info := worldInfo{Zones: Zones, Bounds: [4]float64{worldMinX, worldMinZ, worldMaxX, worldMaxZ}, Activities: ActivityNames,
			Villagers: len(w.Villagers), FirstMonster: len(w.Villagers), TickRate: w.cfg.TickRate, Debugger: debuggerURL, Lairs: []Vec{}}
		for _, m := range w.Monsters {
			info.Lairs = append(info.Lairs, m.Lair)
		}
		writeJSON(rw, info)
	})
	mux.HandleFunc("GET /world/stream", w.stream)
	return mux
}

func writeJSON(rw http.ResponseWriter, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(rw, fmt.Sprintf("encode: %v", err), http.StatusInternalServerError)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Cache-Control", "no-store")
	_, _ = rw.Write(data)
}

// stream sends the world's frames, at most 10 a second.
func (w *World) stream(rw http.ResponseWriter, r *http.Request) {
	w.viewers.Add(1)
	defer w.viewers.Add(-1)
	rc := http.NewResponseController(rw)
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		slog.Debug("village: stream deadline", "err", err)
	}
	rw.Header().Set("Content-Type", "text/event-stream")
	rw.Header().Set("Cache-Control", "no-store")
	rw.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return
	}
	ctx := r.Context()
	const interval = 100 * time.Millisecond
	var buf bytes.Buffer
	var last *[]byte
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		ch := w.changed()
		if snap := w.snapshot.Load(); snap != nil && snap != last {
			last = snap
			buf.Reset()
			buf.WriteString("event: frame\ndata: ")
			buf.Write(*snap)
			buf.WriteString("\n\n")
			if _, err := rw.Write(buf.Bytes()); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
		timer.Reset(interval)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		select {
		case <-ctx.Done():
			return
		case <-ch:
		case <-time.After(15 * time.Second):
			if _, err := rw.Write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}

// Mux serves the world view at "/" and the debugger of sess at "/debug/".
func (w *World) Mux(sess *debug.Session) http.Handler {
	mux := http.NewServeMux()
	dbg := http.StripPrefix("/debug", sess.Handler())
	mux.Handle("/debug/", dbg)
	mux.Handle("/debug", dbg)
	mux.Handle("/", w.Handler("debug/"))
	return mux
}
