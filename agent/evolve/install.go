package evolve

import (
	"context"
	"errors"
	"strings"
)

// Installing a skill (parley skills add / import, /skills add): an
// admin's act, so unlike reflection's changes it may replace any skill of
// the same name. Its text is injected into prompts like any skill's, so
// it passes the same guard; each install is kept as a revision, so an
// update can be undone like any change.

// Install stores s (read by ReadSkillFolder or ParseSkillMD) in scope: a
// skill of the same name is replaced, keeping its key, creation and last
// use; otherwise it is added as a new skill (evicting one past the cap).
// It returns the change made: "installed" or "updated".
func (x *Reflect) Install(ctx context.Context, scope string, s Skill) (Change, error) {
	if x.Guard == nil {
		return Change{}, errors.New("installing a skill needs a guard")
	}
	s.Name, s.Description, s.Body = strings.TrimSpace(s.Name), strings.TrimSpace(s.Description), strings.TrimSpace(s.Body)
	if s.Name == "" || s.Body == "" {
		return Change{}, refused(errors.New("a skill needs a name and instructions"))
	}
	for p := range s.Files {
		if err := SkillFilePath(p); err != nil {
			return Change{}, refused(err)
		}
	}
	skills, err := x.Files.List(ctx, scope)
	if err != nil && len(skills) == 0 {
		return Change{}, err
	}
	var others []string
	var old *Skill
	for i, o := range skills {
		if strings.EqualFold(o.Name, s.Name) {
			old = &skills[i]
			continue
		}
		others = append(others, o.Description, o.Body)
	}
	if err := x.vet(ctx, s.Name+"\n"+s.Description+"\n"+s.Body, others); err != nil {
		return Change{}, err
	}
	now := x.Files.now()
	s.UpdatedAt = now
	rev := Revision{Scope: scope, Kind: "skill", At: x.now()}
	if old != nil {
		s.Slug, s.CreatedAt, s.LastUsedAt, s.PatchCount = old.Slug, old.CreatedAt, old.LastUsedAt, old.PatchCount+1
		rev.Name, rev.Before, rev.Action = old.Slug, string(old.Marshal()), "updated"
		if err := x.Files.Put(ctx, scope, s); err != nil {
			return Change{}, err
		}
		return Change{rev.Action, s.Name}, x.keepRevision(ctx, rev)
	}
	s.CreatedAt, s.PatchCount, s.LastUsedAt = now, 0, Skill{}.LastUsedAt
	if _, err := x.Files.add(ctx, scope, s); err != nil {
		return Change{}, err
	}
	added, err := x.Files.Get(ctx, scope, s.Name)
	if err != nil {
		return Change{}, err
	}
	rev.Name, rev.Action = added.Slug, "installed"
	return Change{rev.Action, s.Name}, x.keepRevision(ctx, rev)
}
