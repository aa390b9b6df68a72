package evolve

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Every change reflection makes is kept as a revision: what the skill (its
// Markdown form) or memo note held before, so a person can undo it (/skills undo N).

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

// Undo puts back what revision r replaced, and forgets r.
func Undo(ctx context.Context, files Skills, memo MemoStore, revs RevisionStore, r Revision) error {
	switch r.Kind {
	case "skill":
		if r.Before == "" {
			if err := files.Store.DeleteSkill(ctx, r.Scope, r.Name); err != nil {
				return err
			}
			break
		}
		s, err := ParseSkill([]byte(r.Before))
		if err != nil {
			return fmt.Errorf("revision %d: %w", r.ID, err)
		}
		s.Slug = r.Name
		// An installed skill's files are not in its revision: keep those
		// it has now.
		if cur, err := files.Get(ctx, r.Scope, s.Name); err == nil && cur.Slug == s.Slug {
			s.Files = cur.Files
		}
		if err := files.Put(ctx, r.Scope, s); err != nil {
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
