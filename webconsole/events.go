package webconsole

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/parleybot/parley/webconsole/signin"
)

// eventsEvery is how often the overview's live figures are sent.
const eventsEvery = 2 * time.Second

// figures are the overview's live figures, as server-sent events carry
// them (static/live.js puts each into the element whose data-live names
// it).
type figures struct {
	Running   int `json:"running"`
	Waiting   int `json:"waiting"`
	Queued    int `json:"queued"`
	Approvals int `json:"approvals"`
}

// events streams the live figures as server-sent events ("load") until the
// browser goes: at once, then every eventsEvery.
func (s *Server) events(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	flush, ok := w.(http.Flusher)
	if !ok {
		s.fail(w, r, http.StatusInternalServerError, "This server cannot stream.")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	tick := time.NewTicker(eventsEvery)
	defer tick.Stop()
	for {
		f, err := s.figures(r)
		if err != nil {
			s.cfg.Logger.Warn("console: live figures", "err", err)
			return
		}
		data, _ := json.Marshal(f) // plain ints: cannot fail
		if _, err := fmt.Fprintf(w, "event: load\ndata: %s\n\n", data); err != nil {
			return // the browser went
		}
		flush.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// figures reads the live figures now.
func (s *Server) figures(r *http.Request) (figures, error) {
	var f figures
	if load, _ := s.now(); load != nil {
		f.Running, f.Waiting, f.Queued = load.Running, load.Waiting, load.Queued
	}
	if src := s.approvalSource(); src != nil {
		pending, err := src.PendingApprovals(r.Context())
		if err != nil {
			return f, err
		}
		f.Approvals = len(pending)
	}
	return f, nil
}
