package main

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole"
)

// The learning of learning from use as the chat (bot.Learning) and the
// console (webconsole.Learning) see it: the skills in the store (#30 §3),
// both sides see them only through here.

var (
	_ bot.Learning        = learning{}
	_ webconsole.Learning = learning{}
)

// learning builds what /skills, /reflect and the console's Learning page
// work on.
func (a *app) learning(logger *slog.Logger) (learning, error) {
	x, err := a.reflector()
	if err != nil {
		return learning{}, err
	}
	source, err := newSkillSource()
	if err != nil {
		return learning{}, err
	}
	return learning{files: skillBook(a.cfg, a.db), db: a.db, s: a.schedulerOver(x, logger), x: x, source: source}, nil
}

// learning is /skills and /reflect, and the console's Learning page,
// over the skills, the rates, notes, revisions and reflection records
// in the database, and reflection.
type learning struct {
	files evolve.Skills
	db    backend
	s     *evolve.Scheduler
	// x is reflection, whose guard a person's edits pass too.
	x *evolve.Reflect
	// source reads the skills an admin installs (/skills add).
	source skillSource
}

func (l learning) Skills(ctx context.Context, scope string) ([]evolve.Skill, error) {
	return l.files.List(ctx, scope)
}

func (l learning) Rates(ctx context.Context, scope, name string) (evolve.Rates, error) {
	return l.db.SkillRates(ctx, scope, name)
}

func (l learning) ForgetSkill(ctx context.Context, scope, name string) error {
	return l.files.Delete(ctx, scope, name)
}

func (l learning) History(ctx context.Context, scope string) ([]evolve.Revision, error) {
	return l.db.Revisions(ctx, scope, 20)
}

func (l learning) Undo(ctx context.Context, r evolve.Revision) error {
	return evolve.Undo(ctx, l.files, l.db, l.db, r)
}

func (l learning) ReflectNow(ctx context.Context, scope string) ([]evolve.Change, error) {
	for _, r := range l.s.Cycle(ctx, time.Now(), scope, true) {
		return r.Changes, r.Err
	}
	return nil, nil // nothing new since the last reflection
}

func (l learning) Memo(ctx context.Context, scope string) (evolve.Memo, error) {
	return l.db.Memo(ctx, scope)
}

func (l learning) EditSkill(ctx context.Context, scope, name, description, body string) error {
	return l.x.EditSkill(ctx, scope, name, description, body)
}

func (l learning) EditMemo(ctx context.Context, scope, note, text string) error {
	return l.x.EditMemo(ctx, scope, note, text)
}

func (l learning) InstallSkill(ctx context.Context, scope, src string) (evolve.Change, error) {
	s, err := l.source.read(ctx, src)
	if err != nil {
		return evolve.Change{}, err
	}
	return l.x.Install(ctx, scope, s)
}

func (l learning) Reflections(ctx context.Context, limit int) ([]evolve.ReflectionRecord, error) {
	return l.db.Reflections(ctx, limit)
}

// Scopes are those with skills, and those with runs that have a note
// or a change kept: notes and revisions come only from reflecting on runs.
func (l learning) Scopes(ctx context.Context) ([]string, error) {
	scopes, err := l.db.SkillScopes(ctx)
	if err != nil {
		return nil, err
	}
	acts, err := l.db.Activity(ctx, evolve.DefaultWeights())
	if err != nil {
		return nil, err
	}
	for _, a := range acts {
		if slices.Contains(scopes, a.Scope) {
			continue
		}
		m, err := l.db.Memo(ctx, a.Scope)
		if err != nil {
			return nil, err
		}
		revs, err := l.db.Revisions(ctx, a.Scope, 1)
		if err != nil {
			return nil, err
		}
		if m != (evolve.Memo{}) || len(revs) > 0 {
			scopes = append(scopes, a.Scope)
		}
	}
	slices.Sort(scopes)
	return scopes, nil
}
