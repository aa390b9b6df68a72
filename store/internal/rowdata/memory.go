package rowdata

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parleybot/parley/agent"
)

// MemoryEntry is one stored entry of a memory list.
type MemoryEntry struct {
	ID      int64
	Content string
}

// MemoryPlan is the set of row changes that turns a stored list into an
// edited one. Deletions run first, then updates, then inserts in list
// order.
type MemoryPlan struct {
	Delete []int64
	Update []MemoryEntry // id with its new content
	Insert []string
}

// Empty reports whether the plan changes nothing.
func (p MemoryPlan) Empty() bool {
	return len(p.Delete) == 0 && len(p.Update) == 0 && len(p.Insert) == 0
}

// PlanMemoryEdit works out the row changes from old to next. A list's
// order is its row ids' order, and new rows get ids above every existing
// one, so a new entry can be inserted only at the end. It trims the common
// prefix and suffix and looks at what differs in between:
//
//   - as many entries as before: each changed one is updated in place
//     (replace);
//   - none left: the old ones are deleted (remove);
//   - none before and nothing after: the new ones are inserted (add);
//   - otherwise everything from the first difference on is deleted and
//     inserted again, which keeps the order right.
//
// Entries left alone so keep their identity (row id and created_at).
func PlanMemoryEdit(old []MemoryEntry, next []string) MemoryPlan {
	n := min(len(old), len(next))
	pre := 0
	for pre < n && old[pre].Content == next[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && old[len(old)-1-suf].Content == next[len(next)-1-suf] {
		suf++
	}
	oldMid, newMid := old[pre:len(old)-suf], next[pre:len(next)-suf]

	var p MemoryPlan
	switch {
	case len(oldMid) == len(newMid):
		for i, e := range oldMid {
			if e.Content != newMid[i] {
				p.Update = append(p.Update, MemoryEntry{e.ID, newMid[i]})
			}
		}
	case len(newMid) == 0:
		for _, e := range oldMid {
			p.Delete = append(p.Delete, e.ID)
		}
	case len(oldMid) == 0 && suf == 0:
		p.Insert = slices.Clone(newMid)
	default:
		for _, e := range old[pre:] {
			p.Delete = append(p.Delete, e.ID)
		}
		p.Insert = slices.Clone(next[pre:])
	}
	return p
}

// Contents returns the entries' texts, in order: what an edit is given.
func Contents(entries []MemoryEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Content
	}
	return out
}

// PlatformOf returns the platform part of a user key "platform:id": the
// users table's platform column.
func PlatformOf(userKey string) string {
	platform, _, _ := strings.Cut(userKey, ":")
	return platform
}

// AddToMemory appends one stored entry of list target to m; an entry of
// a list m does not know is left out.
func AddToMemory(m *agent.Memory, target, content string) {
	switch agent.MemoryTarget(target) {
	case agent.Profile:
		m.Profile = append(m.Profile, content)
	case agent.Facts:
		m.Facts = append(m.Facts, content)
	}
}

// CheckMemoryEdit refuses an edit of a memory list that could not be
// stored: no user key, or a list that is neither profile nor facts.
func CheckMemoryEdit(userKey string, target agent.MemoryTarget) error {
	if userKey == "" {
		return errors.New("edit memory: no user key")
	}
	if _, err := agent.ParseMemoryTarget(string(target)); err != nil {
		return fmt.Errorf("edit memory of %q: %w", userKey, err)
	}
	return nil
}

// EditError is an edit function's own error, kept apart from the
// store's: both engines return it as is (agent.MemoryStore's contract),
// where their own failures are wrapped.
type EditError struct{ Err error }

func (e *EditError) Error() string { return e.Err.Error() }
func (e *EditError) Unwrap() error { return e.Err }

// PlanEdit runs edit on old's contents and plans what it changed
// (PlanMemoryEdit); an error of edit's comes back as an *EditError.
func PlanEdit(old []MemoryEntry, edit func([]string) ([]string, error)) (MemoryPlan, error) {
	next, err := edit(Contents(old))
	if err != nil {
		return MemoryPlan{}, &EditError{Err: err}
	}
	return PlanMemoryEdit(old, next), nil
}

// AsEdited returns an edit's own error as the edit returned it, or err
// unchanged when the edit did not fail.
func AsEdited(err error) (error, bool) {
	var e *EditError
	if errors.As(err, &e) {
		return e.Err, true
	}
	return err, false
}
