package evolve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent/llm"
)

// A person may edit what reflection wrote (the console's Learning page).
// Their text is injected into prompts just as reflection's is, so it
// passes the same guard, and the edit is kept as a revision so it can be
// undone like any of reflection's changes.

// ErrRefused wraps why a person's edit was not made: the guard's reason,
// or a rule (empty steps, a note past its cap or cut by more than half).
// Nothing was changed.
var ErrRefused = errors.New("not saved")

func refused(err error) error { return fmt.Errorf("%w: %w", ErrRefused, err) }

// vet is x's guard with its refusals marked as such.
func (x *Reflect) vet(ctx context.Context, text string, existing []string) error {
	if err := x.Guard(ctx, text, existing); err != nil {
		return refused(err)
	}
	return nil
}

// EditSkill replaces the description and steps of scope's skill name,
// after the guard has vetted them; a refusal is the guard's error and
// changes nothing. Unlike reflection's patches it may shorten a skill a
// lot — a person means it — but never empty it.
func (x *Reflect) EditSkill(ctx context.Context, scope, name, description, body string) error {
	if x.Guard == nil {
		return errors.New("editing a skill needs a guard")
	}
	s, err := x.Files.Get(ctx, scope, name)
	if err != nil {
		return err
	}
	description, body = strings.TrimSpace(description), strings.TrimSpace(body)
	if body == "" {
		return refused(errors.New("a skill needs steps: forget it instead"))
	}
	var others []string
	skills, _ := x.Files.List(ctx, scope)
	for _, o := range skills {
		if o.Slug != s.Slug {
			others = append(others, o.Description, o.Body)
		}
	}
	if err := x.vet(ctx, s.Name+"\n"+description+"\n"+body, others); err != nil {
		return err
	}
	rev := Revision{Scope: scope, Kind: "skill", Name: s.Slug, Action: "edited", Before: string(s.Marshal()), At: x.now()}
	s.Description, s.Body, s.PatchCount, s.UpdatedAt = description, body, s.PatchCount+1, x.Files.now()
	if err := x.Files.Put(ctx, scope, s); err != nil {
		return err
	}
	return x.keepRevision(ctx, rev)
}

// EditMemo rewrites one note of scope's self-memo as reflection's
// memo_update does — the guard, the cap, the shrink rule — and keeps the
// note it replaced as a revision.
func (x *Reflect) EditMemo(ctx context.Context, scope, note, text string) error {
	if x.Guard == nil {
		return errors.New("editing a note needs a guard")
	}
	if x.Memo == nil {
		return errors.New("no self-memo here")
	}
	if note != MemoSelf && note != MemoTeam {
		return refused(errors.New(`note must be "self" or "team"`))
	}
	text = strings.TrimSpace(text)
	rev, err := x.before(ctx, scope, llm.ToolCall{Name: "memo_update", Arguments: []byte(`{"note":"` + note + `"}`)})
	if err != nil {
		return err
	}
	err = updateMemo(ctx, x.Memo, x.vet, scope, note, text)
	if errors.Is(err, ErrMemoTooLong) || errors.Is(err, ErrShrink) {
		err = refused(err)
	}
	if err != nil {
		return err
	}
	rev.Action = "edited"
	return x.keepRevision(ctx, rev)
}

func (x *Reflect) keepRevision(ctx context.Context, rev Revision) error {
	if x.Revisions == nil {
		return nil
	}
	if err := x.Revisions.AddRevision(ctx, rev); err != nil {
		return fmt.Errorf("keep the revision: %w", err)
	}
	return nil
}
