package agent

import (
	"context"
	"errors"
	"fmt"
)

// Team notes (docs/team-notes.md): what people of one place — a Slack
// workspace, a Discord server, a Telegram group — taught Parley for
// everyone there ("we deploy on Tuesdays"). They are kept by place (the
// space scope's key, bot.Where.Team), never by person, and shown to every
// turn in that place after the person's own memory. A turn's Caller.Team
// names its place; a direct chat has none.

// Team is the memory tool's target for the place's team notes.
const Team MemoryTarget = "team"

// DefaultTeamCap is the team notes' cap in characters when none is
// configured: between a person's facts and profile, since every prompt in
// the place carries them.
const DefaultTeamCap = 2000

// TeamNote is one team note and who wrote it last, so a note outlives the
// person (erasing them leaves it) but its origin is known.
type TeamNote struct {
	Content string
	Author  string // "platform:id"
}

// TeamStore keeps the team notes of every place.
type TeamStore interface {
	// TeamNotes lists place's notes in order; none is an empty list.
	TeamNotes(ctx context.Context, place string) ([]TeamNote, error)
	// EditTeamNotes loads place's notes, passes their contents to edit and
	// stores what it returns in one transaction, as EditMemory does; notes
	// it adds or changes are recorded as author's. An error from edit
	// aborts the transaction and is returned as is.
	EditTeamNotes(ctx context.Context, place, author string, edit func(notes []string) ([]string, error)) error
}

// TeamDesk is the chat core's side of a turn's team notes: it reads the
// place's notes and decides what becomes of a write (written at once,
// proposed to its author, or suggested to an admin), since who may write
// is the core's configuration, not the tool's.
type TeamDesk interface {
	TeamNotes(ctx context.Context, place string) ([]TeamNote, error)
	// WriteTeam makes e (e.Place set) for c's author, or proposes it, and
	// says what happened in words for the model.
	WriteTeam(ctx context.Context, c Caller, e MemoryEdit) (string, error)
}

// NoteContents are the notes' texts, in order.
func NoteContents(notes []TeamNote) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.Content
	}
	return out
}

// ApplyTeamEdit makes e to the notes of e.Place for author, within limits'
// team cap, and returns their size after it.
func ApplyTeamEdit(ctx context.Context, store TeamStore, author string, limits MemoryLimits, e MemoryEdit) (size, limit int, err error) {
	if e.Place == "" {
		return 0, 0, errors.New("team notes: no place (a direct chat has none)")
	}
	limit = limits.Cap(Team)
	edit, err := editFunc(e, limit)
	if err != nil {
		return 0, limit, err
	}
	err = store.EditTeamNotes(ctx, e.Place, author, func(ns []string) ([]string, error) {
		out, err := edit(ns)
		size = Size(out)
		return out, err
	})
	return size, limit, err
}

// CheckTeamEdit says whether e would apply to notes within limits' team
// cap, without applying it: a write that cannot succeed is refused before
// anyone is asked to confirm it.
func CheckTeamEdit(notes []TeamNote, limits MemoryLimits, e MemoryEdit) error {
	edit, err := editFunc(e, limits.Cap(Team))
	if err != nil {
		return err
	}
	_, err = edit(NoteContents(notes))
	return err
}

// teamNotes loads the notes of place for a turn's prompt; none without a
// place or a store.
func (r *Runner) teamNotes(ctx context.Context, place string) ([]string, error) {
	if place == "" || r.Team == nil {
		return nil, nil
	}
	notes, err := r.Team.TeamNotes(ctx, place)
	if err != nil {
		return nil, fmt.Errorf("load team notes of %s: %w", place, err)
	}
	return NoteContents(notes), nil
}
