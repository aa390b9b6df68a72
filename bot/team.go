package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// Team notes (docs/team-notes.md): what people of a place taught Parley
// for everyone there, shown in every turn's prompt there. The memory tool
// vets a write; the router decides what becomes of it — written at once
// for a writer, proposed privately to its author when the turn is tainted
// (as personal memory is, router_memory_confirm.go), suggested in the place
// to its admins when the author may not write.

// TeamConfig turns team notes on.
type TeamConfig struct {
	Store   agent.TeamStore
	Writers TeamWriters
	// Vet is the memory guard (guard.Vet with the judge) an edit by
	// command passes, as the memory tool's writes do; nil: /memory team
	// edit is off (the tool still writes, through its own guard).
	Vet func(ctx context.Context, content string, existing []string) error
}

// TeamWriters says who may write team notes without an admin's
// confirmation (memory.team.writers); the zero value is anyone.
type TeamWriters struct {
	AdminsOnly bool
	Users      []string // "platform:id"; empty: anyone
}

// ParseTeamWriters reads memory.team.writers: "anyone", "admins", or a
// list of "platform:id".
func ParseTeamWriters(list []string) (TeamWriters, error) {
	switch {
	case len(list) == 0 || slices.Equal(list, []string{"anyone"}):
		return TeamWriters{}, nil
	case slices.Equal(list, []string{"admins"}):
		return TeamWriters{AdminsOnly: true}, nil
	}
	for _, u := range list {
		if p, id, ok := strings.Cut(u, ":"); !ok || p == "" || id == "" {
			return TeamWriters{}, fmt.Errorf("memory.team.writers: %q is not platform:id; want anyone, admins or a list of platform:id", u)
		}
	}
	return TeamWriters{Users: slices.Clone(list)}, nil
}

// May reports whether userKey writes team notes without a confirmation.
// Admins always may: they are who would confirm.
func (w TeamWriters) May(a Access, userKey string) bool {
	switch {
	case slices.Contains(a.Admins, userKey):
		return true
	case w.AdminsOnly:
		return false
	}
	return len(w.Users) == 0 || slices.Contains(w.Users, userKey)
}

var _ agent.TeamDesk = (*Router)(nil)

// teamOf is the key of where's team notes' place; "" where there are none
// (a direct chat, or team notes off).
func (r *Router) teamOf(where Where) string {
	s, ok := where.Team()
	if !ok || r.cfg.Team == nil {
		return ""
	}
	return s.Key()
}

// teamDesk is the router as a turn's TeamDesk; nil (no interface holding
// a nil router) when team notes are off.
func (r *Router) teamDesk() agent.TeamDesk {
	if r.cfg.Team == nil {
		return nil
	}
	return r
}

// TeamNotes lists place's notes.
func (r *Router) TeamNotes(ctx context.Context, place string) ([]agent.TeamNote, error) {
	if r.cfg.Team == nil {
		return nil, errors.New("team notes are off")
	}
	return r.cfg.Team.Store.TeamNotes(ctx, place)
}

// WriteTeam makes e, which the memory tool vetted, for c's author — or
// has it confirmed first: by the author when the turn is tainted, by an
// admin when the author may not write.
func (r *Router) WriteTeam(ctx context.Context, c agent.Caller, e agent.MemoryEdit) (string, error) {
	if r.cfg.Team == nil || e.Place == "" || e.Place != c.Team {
		return "", errors.New("no team notes here")
	}
	switch {
	case !r.cfg.Team.Writers.May(r.cfg.Access, c.UserKey):
		if err := r.suggestTeam(ctx, c, e); err != nil {
			return "", fmt.Errorf("not saved: asking an admin to confirm it failed: %w", err)
		}
		return "not saved yet: only some people write team notes here, so an admin was asked in this conversation " +
			"to confirm it; it is saved only if they do. Do not ask again.", nil
	case c.Tainted:
		if err := r.ProposeMemory(ctx, c, e); err != nil {
			return "", fmt.Errorf("not saved: asking %s to confirm it failed: %w", c.UserName, err)
		}
		return fmt.Sprintf("not saved yet: this conversation has read content from outside, so %s was asked privately "+
			"to confirm the team note; it is saved only if they do. Do not ask again.", c.UserName), nil
	}
	size, limit, err := agent.ApplyTeamEdit(ctx, r.cfg.Team.Store, c.UserKey, r.cfg.Commands.limits, e)
	if err != nil {
		return "", err
	}
	r.audit(ctx, AuditEntry{Actor: c.UserKey, Action: "team.write", Target: e.Place, Detail: teamDetail(e), Via: "chat"})
	return fmt.Sprintf("done: %s team note (%d of %d characters used); everyone here sees it", e.Action, size, limit), nil
}

// teamDetail is an audit entry's detail: a team note is the place's, not
// a person's, so the log may say what it says.
func teamDetail(e agent.MemoryEdit) string {
	if e.Action == "remove" {
		return e.Action + ": " + e.OldText
	}
	return e.Action + ": " + e.Content
}

// pendingTeam is a team note a non-writer suggested, waiting for an
// admin's decision.
type pendingTeam struct {
	Author string           `json:"author"` // User.Key
	Edit   agent.MemoryEdit `json:"edit"`
	oneTime
}

func teamSuggestKey(token string) string { return "teamsug:" + token }

// suggestTeam posts e in the conversation, with Save and Discard buttons
// only an admin may press; the buttons carry a one-time token.
func (r *Router) suggestTeam(ctx context.Context, c agent.Caller, e agent.MemoryEdit) error {
	info, err := r.cfg.Sessions.Session(ctx, c.SessionID)
	if err != nil {
		return fmt.Errorf("conversation of session %s: %w", c.SessionID, err)
	}
	if a, ok := r.adapters[info.Thread.Platform]; !ok || !a.Capabilities().Buttons {
		return errors.New("this chat has no buttons to confirm with")
	}
	token, err := r.keepButton(ctx, teamSuggestKey, &pendingTeam{Author: c.UserKey, Edit: e})
	if err != nil {
		return fmt.Errorf("team suggestion: %w", err)
	}
	block, _ := format.CodeBlock(e.Content, -1)
	text := fmt.Sprintf("%s suggests a team note for everyone here; an admin decides:\n%s", c.UserName, block)
	if e.Action != "add" {
		old, _ := format.CodeBlock(e.OldText, -1)
		text += fmt.Sprintf("\nIt %ss the note that contains:\n%s", e.Action, old)
	}
	text += fmt.Sprintf("\n(expires in %s)", format.Duration(memoryConfirmTTL))
	_, err = r.cfg.Outbound.Post(ctx, info.Thread, chat.Out{Text: text, Buttons: []chat.Button{
		{Label: "Save for the team", Style: chat.ButtonPrimary, Data: saveTeamData + token},
		{Label: "Discard", Style: chat.ButtonDanger, Data: discardTeamData + token},
	}})
	return err
}

// teamClick takes an admin's Save or Discard: only an admin, only in the
// note's place, only once, only before it expires.
func (r *Router) teamClick(ctx context.Context, a chat.Action) error {
	save, token := saveOrDiscard(a.Data, saveTeamData, discardTeamData)
	key := teamSuggestKey(token)
	var p pendingTeam
	valid, err := r.openButton(ctx, key, &p)
	if err != nil {
		return err
	}
	// A click in another place than the note's is a forged or misrouted
	// payload: the note is that place's alone.
	if !valid || r.teamOf(Where{Thread: a.Thread, User: a.User}) != p.Edit.Place {
		return r.cfg.Outbound.Tell(ctx, a, msgButtonInvalid)
	}
	if !r.cfg.Access.IsAdmin(a.User) {
		return r.cfg.Outbound.Tell(ctx, a, "Only an admin can decide on a team note.")
	}
	if err := r.spendButton(ctx, key, &p); err != nil {
		return err
	}
	// The note is its author's words; the admin only let it in.
	return r.teamSaved(ctx, a, p.Author, p.Edit, save)
}

// teamSaved acts on a decided team note — an admin's on a suggestion, or
// its author's on a tainted turn's proposal — and records the decision.
func (r *Router) teamSaved(ctx context.Context, a chat.Action, author string, e agent.MemoryEdit, save bool) error {
	decided := AuditEntry{Actor: a.User.Key(), Action: "team.discard", Target: e.Place, Detail: teamDetail(e), Via: "chat"}
	if !save {
		r.audit(ctx, decided)
		return r.cfg.Outbound.Tell(ctx, a, "Discarded: the team note was not kept.")
	}
	if r.cfg.Team == nil {
		return r.cfg.Outbound.Tell(ctx, a, msgButtonInvalid)
	}
	if _, _, err := agent.ApplyTeamEdit(ctx, r.cfg.Team.Store, author, r.cfg.Commands.limits, e); err != nil {
		return r.cfg.Outbound.Tell(ctx, a, "I could not save it: "+err.Error())
	}
	decided.Action = "team.confirm"
	r.audit(ctx, decided)
	return r.cfg.Outbound.Tell(ctx, a, "Saved for the team. See /memory team there.")
}
