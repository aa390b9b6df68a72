package main

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole"
)

// The learning of learning from use as the chat (bot.Learning) and the
// console (webconsole.Learning) see it. Skills are files today and move
// into the store later (#30): both sides see them only through here.

var (
	_ bot.Learning        = learning{}
	_ webconsole.Learning = consoleLearning{}
)

// learning builds what /skills, /reflect and the console's Learning page
// work on.
func (a *app) learning(logger *slog.Logger) (learning, error) {
	x, err := a.reflector()
	if err != nil {
		return learning{}, err
	}
	return learning{files: skillFiles(a.cfg), db: a.db, s: a.schedulerOver(x, logger), x: x, agents: a.cfg.AgentNames()}, nil
}

// learning is /skills and /reflect, and the console's Learning page,
// over the skill files, the rates, notes, revisions and reflection records
// in the database, and reflection.
type learning struct {
	files evolve.SkillFiles
	db    backend
	s     *evolve.Scheduler
	// x is reflection, whose guard a person's edits pass too.
	x *evolve.Reflect
	// agents are the configured agents' names, to read scope folders by.
	agents []string
}

func (l learning) Skills(scope string) ([]evolve.Skill, error) {
	skills, _ := l.files.List(scope) // a broken file hides only itself
	return skills, nil
}

func (l learning) Rates(ctx context.Context, scope, name string) (evolve.Rates, error) {
	return l.db.SkillRates(ctx, scope, name)
}

func (l learning) ForgetSkill(scope, name string) error { return l.files.Delete(scope, name) }

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

func (l learning) Reflections(ctx context.Context, limit int) ([]evolve.ReflectionRecord, error) {
	return l.db.Reflections(ctx, limit)
}

// Scopes are those with skill files, and those with runs that have a note
// or a change kept: notes and revisions come only from reflecting on runs.
func (l learning) Scopes(ctx context.Context) ([]string, error) {
	var scopes []string
	dirs, err := os.ReadDir(l.files.Dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, d := range dirs {
		if d.IsDir() {
			if skills, _ := l.files.List(scopeOfDir(d.Name(), l.agents)); len(skills) > 0 {
				scopes = append(scopes, scopeOfDir(d.Name(), l.agents))
			}
		}
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

// consoleLearning is learning as the console sees it: context first
// throughout, as a store behind it will want.
type consoleLearning struct{ learning }

func (l consoleLearning) Skills(_ context.Context, scope string) ([]evolve.Skill, error) {
	return l.learning.Skills(scope)
}

func (l consoleLearning) ForgetSkill(_ context.Context, scope, name string) error {
	return l.learning.ForgetSkill(scope, name)
}
