package webconsole

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole/signin"
)

// TimeItems is what the Time page reads and changes: the reminders and
// schedules (remind.ItemStore's, on either engine).
type TimeItems interface {
	remind.ItemLister
	Item(ctx context.Context, id int64) (remind.Item, error)
	CancelItem(ctx context.Context, id int64) error
	PauseItem(ctx context.Context, id int64, paused bool, now time.Time) (remind.Item, error)
}

// timeGroup is one place's items on the Time page.
type timeGroup struct {
	Scope string
	Rows  []timeRow
}

// timeRow is one item as the Time page shows it: its times already in its
// own zone and in UTC, since the template has no zones.
type timeRow struct {
	remind.Item
	Local, UTC string
	Repeats    string
	LastRunAt  string
}

// timePage lists active and paused reminders and schedules, by place: an
// admin's across every scope (?scope=, ?owner=, ?kind= narrow it), a
// person's only their own; a page at a time (?page=N).
func (s *Server) timePage(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	q := r.URL.Query()
	page := max(atoi(q.Get("page")), 1)
	f := remind.ItemFilter{Scope: q.Get("scope"), Kind: remind.Kind(q.Get("kind")), Offset: (page - 1) * pageSize}
	if f.Kind != remind.KindReminder && f.Kind != remind.KindSchedule {
		f.Kind = "" // none or an unknown one from the URL: both
	}
	if who.Admin {
		f.Owner = q.Get("owner")
	} else {
		f.Owner = who.User // whatever the URL says
	}
	items, err := s.cfg.Data.AllItems(r.Context(), f, pageSize+1)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	more := len(items) > pageSize
	items = items[:min(len(items), pageSize)]
	var groups []timeGroup
	for _, it := range items {
		if len(groups) == 0 || groups[len(groups)-1].Scope != it.Scope {
			groups = append(groups, timeGroup{Scope: it.Scope})
		}
		g := &groups[len(groups)-1]
		g.Rows = append(g.Rows, rowOf(it))
	}
	// The pager keeps the filter: only page changes.
	keep := url.Values{}
	for k, v := range map[string]string{"scope": f.Scope, "kind": string(f.Kind), "owner": q.Get("owner")} {
		if v != "" && (k != "owner" || who.Admin) {
			keep.Set(k, v)
		}
	}
	title := "Time"
	if !who.Admin {
		title = "Your reminders"
	}
	at := func(p int) string {
		keep.Set("page", strconv.Itoa(p))
		return "/time?" + keep.Encode()
	}
	data := map[string]any{"Title": title, "Nav": "time", "Groups": groups, "Filter": f}
	if page > 1 {
		data["Earlier"] = at(page - 1)
	}
	if more {
		data["Later"] = at(page + 1)
	}
	s.render(w, r, http.StatusOK, "time", who, data)
}

// rowOf is it as the page shows it.
func rowOf(it remind.Item) timeRow {
	row := timeRow{Item: it, UTC: it.Next.UTC().Format("2006-01-02 15:04 UTC"), Repeats: "once"}
	local := it.Next
	if loc, err := it.Location(); err == nil {
		local = it.Next.In(loc)
	}
	row.Local = local.Format("Mon 2 Jan 2006 15:04 MST")
	if it.Recurring() {
		row.Repeats = it.Spec + " (" + it.Zone + ")"
	}
	if !it.LastRun.IsZero() {
		row.LastRunAt = it.LastRun.UTC().Format("2006-01-02 15:04 UTC")
	}
	return row
}

// changeItem pauses, resumes or cancels one item (how: "pause", "resume",
// "cancel"), under the chat's rules (/remind, /schedules): a person
// changes only their own items, an admin anyone's. A person is refused
// alike for someone else's item and for one that does not exist, so the
// answer says nothing of others' ids.
func (s *Server) changeItem(how string) handler {
	return func(w http.ResponseWriter, r *http.Request, who *signin.Session) {
		ctx := r.Context()
		it, err := s.itemAt(ctx, r.PathValue("id"))
		id, notFound := it.ID, errors.Is(err, store.ErrNotFound)
		switch {
		case !who.Admin && (notFound || (err == nil && it.Owner != who.User)):
			s.fail(w, r, http.StatusForbidden, "Only its creator or an admin can change that.")
			return
		case notFound:
			s.fail(w, r, http.StatusNotFound, "There is no such reminder or schedule.")
			return
		case err != nil:
			s.serverError(w, r, err)
			return
		}
		changed := true
		switch how {
		case "cancel":
			err = s.cfg.Data.CancelItem(ctx, id)
		default:
			pause := how == "pause"
			// Pausing what is paused, or resuming what runs, changes
			// nothing and so is not audited.
			changed = pause != (it.Status == remind.StatusPaused)
			_, err = s.cfg.Data.PauseItem(ctx, id, pause, s.cfg.Now())
		}
		if errors.Is(err, remind.ErrFinished) {
			s.fail(w, r, http.StatusConflict, "It is done or cancelled already.")
			return
		}
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		if changed {
			s.record(ctx, who, "reminder."+how, strconv.FormatInt(id, 10), string(it.Kind))
		}
		http.Redirect(w, r, "/time", http.StatusSeeOther)
	}
}

// itemAt reads the item whose id is the path's; an id that is no number
// is not found either.
func (s *Server) itemAt(ctx context.Context, path string) (remind.Item, error) {
	id, err := strconv.ParseInt(path, 10, 64)
	if err != nil {
		return remind.Item{}, fmt.Errorf("item %q: %w", path, store.ErrNotFound)
	}
	return s.cfg.Data.Item(ctx, id)
}
