package evolve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Every change reflection makes is kept as a revision: what the skill file
// or memo note held before, so a person can undo it (/skills undo N).

// Revision is one change.
type Revision struct {
	ID     int64
	Scope  string
	Kind   string // "skill" (Name is the file's slug) or "memo" (Name is "self" or "team")
	Name   string
	Action string // what reflection did: created, patched, deleted, noted
	Before string // the file or note before; "" when the change created it
	At     time.Time
}

// RevisionStore keeps revisions (store.DB).
type RevisionStore interface {
	AddRevision(ctx context.Context, r Revision) error
	Revisions(ctx context.Context, scope string, n int) ([]Revision, error) // newest first
	DeleteRevision(ctx context.Context, id int64) error
}

// skillFile is the current content of a skill's file, "" when none.
func (f SkillFiles) skillFile(scope, slug string) string {
	data, err := os.ReadFile(filepath.Join(f.ScopeDir(scope), slug+".md"))
	if err != nil {
		return ""
	}
	return string(data)
}

// Undo puts back what revision r replaced, and forgets r.
func Undo(ctx context.Context, files SkillFiles, memo MemoStore, revs RevisionStore, r Revision) error {
	switch r.Kind {
	case "skill":
		path := filepath.Join(files.ScopeDir(r.Scope), r.Name+".md")
		if r.Before == "" {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			break
		}
		s, err := ParseSkill([]byte(r.Before))
		if err != nil {
			return fmt.Errorf("revision %d: %w", r.ID, err)
		}
		s.Slug = r.Name
		if err := files.write(r.Scope, s); err != nil {
			return err
		}
	case "memo":
		if memo == nil {
			return errors.New("no self-memo here")
		}
		if err := memo.SetMemo(ctx, r.Scope, r.Name, r.Before); err != nil {
			return err
		}
	default:
		return fmt.Errorf("revision %d: unknown kind %q", r.ID, r.Kind)
	}
	return revs.DeleteRevision(ctx, r.ID)
}
