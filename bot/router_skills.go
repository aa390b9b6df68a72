package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/chat"
)

// /skills and /reflect: what Parley has learnt in this place, and
// reflecting on it now (docs/evolution.md). The scope is this place's own
// (Where.Home): a channel lists the workspace's skills, a direct chat the
// person's.

// Learning is learning from use as the commands need it.
type Learning interface {
	Skills(ctx context.Context, scope string) ([]evolve.Skill, error)
	Rates(ctx context.Context, scope, name string) (evolve.Rates, error)
	ForgetSkill(ctx context.Context, scope, name string) error
	// ReflectNow reflects on scope now, whatever its score and cooldown.
	ReflectNow(ctx context.Context, scope string) ([]evolve.Change, error)
	// History lists scope's latest changes, newest first; Undo puts one
	// back.
	History(ctx context.Context, scope string) ([]evolve.Revision, error)
	Undo(ctx context.Context, r evolve.Revision) error
	// InstallSkill installs the skill at src — a folder in the open Agent
	// Skills format on the server, or a SKILL.md's http(s) URL, fetched
	// through web_fetch's guard — in scope, through the memory guard; a
	// skill of the same name is replaced.
	InstallSkill(ctx context.Context, scope, src string) (evolve.Change, error)
}

func (r *Router) cmdSkills(ctx context.Context, c chat.Command) error {
	l := r.cfg.Learning
	if l == nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Learning from use is off here."})
	}
	scope, ok := r.learnsHere(ctx, Where{Thread: c.Thread, User: c.User, Direct: c.Direct})
	if !ok {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Learning from use is off for the agent that answers here."})
	}
	skills, err := l.Skills(ctx, scope)
	if err != nil {
		return err
	}
	sub, n := "", 0
	if len(c.Args) > 0 {
		sub = strings.ToLower(c.Args[0])
	}
	if len(c.Args) > 1 {
		n, _ = strconv.Atoi(c.Args[1])
	}
	pick := func() (evolve.Skill, bool) {
		if n < 1 || n > len(skills) {
			return evolve.Skill{}, false
		}
		return skills[n-1], true
	}
	switch sub {
	case "", "list", "ls":
		return r.skillsList(ctx, c, l, scope, skills)
	case "show":
		s, ok := pick()
		if !ok {
			return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Which one? /skills show N, with N from 1 to %d (see /skills).", len(skills))})
		}
		return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("*%s*\n_%s_\n\n%s", s.Name, s.Description, s.Body)})
	case "history":
		return r.skillsHistory(ctx, c, l, scope)
	case "undo":
		if len(c.Args) < 2 {
			n = 1 // the latest
		}
		return r.skillsUndo(ctx, c, l, scope, n)
	case "add", "install":
		return r.skillsAdd(ctx, c, l, scope)
	case "forget", "rm":
		s, ok := pick()
		if !ok {
			return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Which one? /skills forget N, with N from 1 to %d (see /skills).", len(skills))})
		}
		// In a shared place the skills are the team's: an admin decides.
		// In a direct chat they are the person's own.
		if !c.Direct && !r.cfg.Access.IsAdmin(c.User) {
			return r.answerPrivately(ctx, c, chat.Out{Text: "Only an admin can remove this place's skills."})
		}
		if err := l.ForgetSkill(ctx, scope, s.Name); err != nil {
			return err
		}
		r.audit(ctx, AuditEntry{Actor: c.User.Key(), Action: "skill.forget", Target: scope, Detail: s.Name, Via: "chat"})
		return r.answerPrivately(ctx, c, chat.Out{Text: "Removed the skill " + s.Name + "."})
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: "Usage: /skills, /skills show N, /skills forget N, /skills history, /skills undo N, /skills add PATH|URL"})
}

// skillsList is /skills: the place's skills with how each does.
func (r *Router) skillsList(ctx context.Context, c chat.Command, l Learning, scope string, skills []evolve.Skill) error {
	if len(skills) == 0 {
		return r.answerPrivately(ctx, c, chat.Out{Text: "I have learnt no skills here yet."})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skills I have learnt here (%d):\n", len(skills))
	for i, s := range skills {
		rt, err := l.Rates(ctx, scope, s.Name)
		if err != nil {
			return err
		}
		origin := "learnt"
		if s.Origin != "" {
			origin = "installed from " + s.Origin
		}
		// The mark reflection reads too (evolve.Rates.Failing): it will
		// rewrite or retire the skill at its next cycle.
		failing := ""
		if rt.Failing() {
			failing = " INEFFECTIVE —"
		}
		fmt.Fprintf(&b, "%d.%s %s — %s (%s; read %.0f%% of the times listed; corrected after %.0f%%; failed after %.0f%%)\n",
			i+1, failing, s.Name, s.Description, origin, 100*rt.InvocationRate(), 100*rt.EditAfterHitRate(), 100*rt.IneffectiveRate())
	}
	b.WriteString("/skills show N shows one; /skills forget N removes it.")
	return r.answerPrivately(ctx, c, chat.Out{Text: b.String()})
}

// skillsAdd is /skills add PATH|URL: an admin installs a skill in the
// open format here. It is the team's (or, in a direct chat, the admin's
// own) like a learnt one; its scripts are kept, never run on install.
func (r *Router) skillsAdd(ctx context.Context, c chat.Command, l Learning, scope string) error {
	if !r.cfg.Access.IsAdmin(c.User) {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Only an admin can install skills."})
	}
	if len(c.Args) != 2 {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Usage: /skills add PATH|URL — a skill folder (with SKILL.md) on the server, or a SKILL.md's URL."})
	}
	ch, err := l.InstallSkill(ctx, scope, c.Args[1])
	if err != nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Not installed: " + err.Error()})
	}
	r.audit(ctx, AuditEntry{Actor: c.User.Key(), Action: "skill.install", Target: scope, Detail: ch.Skill + " from " + c.Args[1], Via: "chat"})
	return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Skill %s: %s (from %s). Its scripts run only as shell commands you approve.", ch.Skill, ch.Action, c.Args[1])})
}

// skillsHistory is /skills history: what reflection changed here.
func (r *Router) skillsHistory(ctx context.Context, c chat.Command, l Learning, scope string) error {
	revs, err := l.History(ctx, scope)
	if err != nil {
		return err
	}
	if len(revs) == 0 {
		return r.answerPrivately(ctx, c, chat.Out{Text: "No changes to undo here."})
	}
	var b strings.Builder
	b.WriteString("What I changed here, newest first:\n")
	for i, v := range revs {
		fmt.Fprintf(&b, "%d. %s %s %s (%s)\n", i+1, v.Action, v.Kind, v.Name, v.At.Format("2006-01-02 15:04"))
	}
	b.WriteString("/skills undo N puts one back.")
	return r.answerPrivately(ctx, c, chat.Out{Text: b.String()})
}

// skillsUndo is /skills undo N: change n of the history put back, by an
// admin, or in a direct chat by its person.
func (r *Router) skillsUndo(ctx context.Context, c chat.Command, l Learning, scope string, n int) error {
	if !c.Direct && !r.cfg.Access.IsAdmin(c.User) {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Only an admin can undo this place's changes."})
	}
	revs, err := l.History(ctx, scope)
	if err != nil {
		return err
	}
	if n < 1 || n > len(revs) {
		return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Which one? /skills undo N, with N from 1 to %d (see /skills history).", len(revs))})
	}
	v := revs[n-1]
	if err := l.Undo(ctx, v); err != nil {
		return err
	}
	// The same action the console writes for an undo: skill.undo or
	// memo.undo.
	r.audit(ctx, AuditEntry{Actor: c.User.Key(), Action: v.Kind + ".undo", Target: scope,
		Detail: fmt.Sprintf("%s %s %s", v.Action, v.Kind, v.Name), Via: "chat"})
	return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Undone: %s %s %s.", v.Action, v.Kind, v.Name)})
}

// cmdReflect reflects on this place now (admins), in the background: it
// takes model calls.
func (r *Router) cmdReflect(ctx context.Context, c chat.Command) error {
	l := r.cfg.Learning
	if l == nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Learning from use is off here."})
	}
	if !r.cfg.Access.IsAdmin(c.User) {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Only an admin can start a reflection."})
	}
	scope, ok := r.learnsHere(ctx, Where{Thread: c.Thread, User: c.User, Direct: c.Direct})
	if !ok {
		return r.answerPrivately(ctx, c, chat.Out{Text: "Learning from use is off for the agent that answers here."})
	}
	base := r.base
	r.wg.Go(func() {
		changes, err := l.ReflectNow(base, scope)
		var text string
		switch {
		case err != nil:
			text = "The reflection failed: " + err.Error()
		case len(changes) == 0:
			text = "I reflected on this place and found nothing worth keeping."
		default:
			var parts []string
			for _, ch := range changes {
				parts = append(parts, ch.Action+" "+ch.Skill)
			}
			text = "I reflected on this place: " + strings.Join(parts, "; ") + ". See /skills."
		}
		if err := r.answerPrivately(base, c, chat.Out{Text: text}); err != nil {
			r.log.Error("reflect: answer", "err", err)
		}
	})
	return nil
}

// learnsHere is the scope the agent answering at w learns in there: its
// skills and self-memo, apart from another agent's in the same place.
// ok is false when that agent does not learn (evolution: false).
func (r *Router) learnsHere(ctx context.Context, w Where) (scope string, ok bool) {
	ag, _, _ := r.agentAt(ctx, w)
	return w.Home().Of(ag.Name).Key(), !ag.NoLearning
}
