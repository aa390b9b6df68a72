package webconsole

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/kb"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/webconsole/signin"
)

// home is an admin's overview, or what Parley keeps about a person.
func (s *Server) home(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	if !who.Admin {
		s.me(w, r, who)
		return
	}
	recent, err := s.cfg.Data.Conversations(r.Context(), store.ConversationFilter{Limit: 10})
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	log, err := s.cfg.Audit.AuditEntries(r.Context(), bot.AuditFilter{}, 10)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	data := map[string]any{"Title": "Overview", "Nav": "home", "Recent": recent, "Audit": log}
	data["Load"], data["Platforms"] = s.now()
	if s.cfg.Shared != nil {
		// Replicas beat every few seconds (docs/replicas.md): two
		// minutes without one is gone.
		now := s.cfg.Now()
		replicas, err := s.cfg.Shared.LiveReplicas(r.Context(), now.Add(-2*time.Minute))
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		leases, err := s.cfg.Shared.HeldLeases(r.Context(), now)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		data["Replicas"], data["Leases"] = replicas, leases
	}
	if s.cfg.Costs != nil {
		// Today's calls and cost, every replica's: the store has them all.
		day := s.cfg.Now().UTC().Truncate(24 * time.Hour)
		today, err := s.cfg.Costs.SumCosts(r.Context(), bot.CostFilter{Since: day, Until: day.AddDate(0, 0, 1)})
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		data["Today"] = today
	}
	if s.cfg.Turns != nil {
		a, err := overviewAnswers(r.Context(), s.cfg.Turns, s.cfg.Now())
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		data["Answers"] = a
	}
	if src := s.approvalSource(); src != nil {
		pending, err := src.PendingApprovals(r.Context())
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		data["Pending"] = len(pending)
	}
	s.render(w, r, http.StatusOK, "home", who, data)
}

// me is a person's own page: their memory and their conversations.
func (s *Server) me(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	mem, err := s.cfg.Data.Memory(r.Context(), who.User)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	mine, err := s.cfg.Data.Conversations(r.Context(), store.ConversationFilter{User: who.User, Limit: 10})
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	data := map[string]any{"Title": "What Parley keeps about you", "Nav": "home", "Memory": mem, "Recent": mine,
		"CanEdit": s.cfg.VetMemory != nil}
	if k := s.cfg.Knowledge; k != nil && k.Ready() == nil {
		docs, err := s.cfg.Data.Documents(r.Context(), []string{personScope(who.User)})
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		data["Documents"], data["KB"], data["Cap"] = docs, true, kb.Size(k.MaxFileBytes())
		data["Note"] = notes[r.URL.Query().Get("done")]
	}
	s.render(w, r, http.StatusOK, "home", who, data)
}

// forget removes one entry of the caller's own memory, named by its list
// and its text (not its position, which may have moved).
func (s *Server) forget(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	target := agent.MemoryTarget(r.PostFormValue("target"))
	if target != agent.Profile && target != agent.Facts {
		s.fail(w, r, http.StatusBadRequest, "Which list: profile or facts?")
		return
	}
	removed, err := bot.ForgetEntry(r.Context(), s.cfg.Data, who.User, target, r.PostFormValue("entry"))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if removed {
		// The entry itself stays out of the log: it is the person's.
		s.record(r.Context(), who, "memory.forget", who.User, string(target))
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// editMemory replaces one entry of the caller's own memory, named by its
// list and its text, with what they wrote: through the memory guard, as
// the memory tool's writes, and within the list's cap. A refusal changes
// nothing and says why.
func (s *Server) editMemory(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	if s.cfg.VetMemory == nil {
		s.fail(w, r, http.StatusNotFound, "Memory can be forgotten here, not edited.")
		return
	}
	target := agent.MemoryTarget(r.PostFormValue("target"))
	if target != agent.Profile && target != agent.Facts {
		s.fail(w, r, http.StatusBadRequest, "Which list: profile or facts?")
		return
	}
	old, text := r.PostFormValue("entry"), strings.TrimSpace(r.PostFormValue("text"))
	if text == old {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	mem, err := s.cfg.Data.Memory(r.Context(), who.User)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	entries := mem.Entries(target)
	if !slices.Contains(entries, old) {
		s.fail(w, r, http.StatusConflict, "That entry changed in the meantime: see your page again.")
		return
	}
	// Read beside the others, as the memory tool reads a write.
	others := slices.DeleteFunc(slices.Clone(entries), func(e string) bool { return e == old })
	if err := s.cfg.VetMemory(r.Context(), text, others); err != nil {
		s.fail(w, r, http.StatusUnprocessableEntity, "Not saved: "+err.Error())
		return
	}
	edit := agent.MemoryEdit{Action: "replace", Target: target, OldText: old, Content: text}
	if _, _, err := agent.ApplyMemoryEdit(r.Context(), s.cfg.Data, who.User, s.cfg.MemoryLimits, edit); err != nil {
		s.fail(w, r, http.StatusUnprocessableEntity, "Not saved: "+err.Error())
		return
	}
	// Which list, never the entry: it is the person's.
	s.record(r.Context(), who, "memory.edit", who.User, string(target))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// audit lists the audit log, newest first, a page at a time (?before=ID).
func (s *Server) audit(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	q := r.URL.Query()
	f := bot.AuditFilter{Actor: q.Get("actor"), Action: q.Get("action"), Before: int64(atoi(q.Get("before")))}
	rows, err := s.cfg.Audit.AuditEntries(r.Context(), f, pageSize)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	var older int64
	if len(rows) == pageSize {
		older = rows[len(rows)-1].ID
	}
	s.render(w, r, http.StatusOK, "audit", who, map[string]any{"Title": "Audit log", "Nav": "audit", "Rows": rows, "Filter": f, "Older": older})
}

// sessions lists the live console sessions.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	list, err := s.cfg.Auth.Sessions(r.Context(), s.cfg.Now())
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "sessions", who, map[string]any{"Title": "Sessions", "Nav": "sessions", "Rows": list, "Mine": who.Hash})
}

// revoke ends one session (id: the first 12 characters of its hash) or,
// with all=1, every session but the caller's... and the caller's too:
// "sign everyone out" means everyone.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	prefix := r.PostFormValue("id")
	if r.PostFormValue("all") == "1" {
		prefix = ""
	} else if len(prefix) < 12 {
		s.fail(w, r, http.StatusBadRequest, "Which session? Its id has 12 characters.")
		return
	}
	n, err := s.cfg.Auth.RevokeSessions(r.Context(), prefix)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	target := prefix
	if target == "" {
		target = "all"
	}
	s.record(r.Context(), who, "console.revoke", target, plural(n, "session"))
	http.Redirect(w, r, "/sessions", http.StatusSeeOther)
}

// plural is n things: "1 session", "3 sessions".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
