package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// /memory team: the place's team notes, shown to anyone there; forgotten
// and edited by their writers (memory.team.writers) only. A direct chat has
// none. Answers are private, like every command's.

const msgNoTeamHere = "A direct chat has no team notes: they belong to a workspace, server or group, " +
	"and everyone there sees them. Use /memory team there; what is yours alone is in /memory."

// cmdTeam runs /memory team [forget N | edit N text] (args after "team").
func (r *Router) cmdTeam(ctx context.Context, c chat.Command, args []string) error {
	answer := func(text string) error { return r.answerPrivately(ctx, c, chat.Out{Text: text}) }
	if r.cfg.Team == nil {
		return answer("Team notes are off here.")
	}
	place := r.teamOf(Where{Thread: c.Thread, User: c.User, Direct: c.Direct})
	if place == "" {
		return answer(msgNoTeamHere)
	}
	notes, err := r.cfg.Team.Store.TeamNotes(ctx, place)
	if err != nil {
		return fmt.Errorf("team notes of %s: %w", place, err)
	}
	if len(args) == 0 || strings.EqualFold(args[0], "show") {
		return answer(formatTeam(notes, r.cfg.Commands.limits, r.cfg.Team.Writers.May(r.cfg.Access, c.User.Key())))
	}
	verb := strings.ToLower(args[0])
	if verb != "forget" && verb != "edit" || len(args) < 2 || (verb == "edit") != (len(args) > 2) {
		return answer("Usage: /memory team, /memory team forget N, /memory team edit N new text (N from /memory team)")
	}
	if !r.cfg.Team.Writers.May(r.cfg.Access, c.User.Key()) {
		return answer("Only the team notes' writers (memory.team.writers) may change them; ask in the chat and an admin confirms.")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 1 || n > len(notes) {
		return answer(fmt.Sprintf("There is no note %s: see /memory team.", args[1]))
	}
	old := notes[n-1].Content
	e := agent.MemoryEdit{Action: "remove", Target: agent.Team, OldText: old, Place: place}
	action := "team.forget"
	if verb == "edit" {
		e.Action, e.Content, action = "replace", strings.Join(args[2:], " "), "team.write"
		if r.cfg.Team.Vet == nil {
			return answer("Editing by command is off here: ask me in the chat to change the note.")
		}
		if err := r.cfg.Team.Vet(ctx, e.Content, agent.NoteContents(notes)); err != nil {
			return answer("Not saved: " + err.Error())
		}
	}
	if _, _, err := agent.ApplyTeamEdit(ctx, r.cfg.Team.Store, c.User.Key(), r.cfg.Commands.limits, e); err != nil {
		return answer(fmt.Sprintf("Note %d was not changed: %v", n, err))
	}
	r.audit(ctx, AuditEntry{Actor: c.User.Key(), Action: action, Target: place, Detail: teamDetail(e), Via: "chat"})
	if verb == "edit" {
		return answer(fmt.Sprintf("Note %d now reads: %s", n, e.Content))
	}
	return answer("Forgot the team note: " + old)
}

// formatTeam renders a place's notes as a numbered list.
func formatTeam(notes []agent.TeamNote, limits agent.MemoryLimits, writer bool) string {
	if len(notes) == 0 {
		return "No team notes here yet. Tell me a convention everyone here should know and ask me to keep it as a team note."
	}
	var b strings.Builder
	contents := agent.NoteContents(notes)
	fmt.Fprintf(&b, "**Team notes** (everyone here sees them; %d of %d characters)\n", agent.Size(contents), limits.Cap(agent.Team))
	for i, n := range notes {
		fmt.Fprintf(&b, "%d. %s\n", i+1, n.Content)
	}
	if writer {
		b.WriteString("\nForget one with /memory team forget N; change one with /memory team edit N new text.")
	}
	return b.String()
}
