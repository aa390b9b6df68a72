package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// teamBook is a TeamStore in memory.
type teamBook map[string][]TeamNote

func (b teamBook) TeamNotes(_ context.Context, place string) ([]TeamNote, error) {
	return slices.Clone(b[place]), nil
}

func (b teamBook) EditTeamNotes(_ context.Context, place, author string, edit func([]string) ([]string, error)) error {
	next, err := edit(NoteContents(b[place]))
	if err != nil {
		return err
	}
	notes := make([]TeamNote, len(next))
	for i, n := range next {
		notes[i] = TeamNote{Content: n, Author: author}
	}
	b[place] = notes
	return nil
}

func TestApplyTeamEdit(t *testing.T) {
	limits := MemoryLimits{Team: 50}
	tests := []struct {
		name    string
		e       MemoryEdit
		want    []string
		fails   bool
		wantErr error
	}{
		{"add", MemoryEdit{Action: "add", Content: "we deploy on Tuesdays", Place: "space:slack:T1"}, []string{"staging is eu-west-2", "we deploy on Tuesdays"}, false, nil},
		{"over the cap", MemoryEdit{Action: "add", Content: strings.Repeat("x", 31), Place: "space:slack:T1"}, []string{"staging is eu-west-2"}, true, ErrMemoryFull},
		{"replace", MemoryEdit{Action: "replace", OldText: "staging", Content: "staging is us-east-1", Place: "space:slack:T1"}, []string{"staging is us-east-1"}, false, nil},
		{"remove", MemoryEdit{Action: "remove", OldText: "eu-west", Place: "space:slack:T1"}, []string{}, false, nil},
		{"no place", MemoryEdit{Action: "add", Content: "x"}, []string{"staging is eu-west-2"}, true, nil},
		{"bad action", MemoryEdit{Action: "append", Content: "x", Place: "space:slack:T1"}, []string{"staging is eu-west-2"}, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			book := teamBook{"space:slack:T1": {{Content: "staging is eu-west-2", Author: "slack:UA"}}}
			_, limit, err := ApplyTeamEdit(t.Context(), book, "slack:UB", limits, tc.e)
			if (err != nil) != tc.fails || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Fatalf("ApplyTeamEdit = %v, want failure %v (%v)", err, tc.fails, tc.wantErr)
			}
			if got := NoteContents(book["space:slack:T1"]); !slices.Equal(got, tc.want) {
				t.Errorf("notes = %q, want %q", got, tc.want)
			}
			if err == nil && limit != 50 {
				t.Errorf("limit = %d, want the team cap 50", limit)
			}
		})
	}
}

func TestSystemPromptTeamNotes(t *testing.T) {
	in := PromptInput{User: Caller{UserName: "bob"}, Memory: Memory{Facts: []string{"likes tea"}},
		Team: []string{"we deploy on Tuesdays"}, Limits: MemoryLimits{Team: 500}}
	got := SystemPrompt(in)
	mine, team := strings.Index(got, "- likes tea"), strings.Index(got, "## Team notes for this place (21 of 500 characters)\n- we deploy on Tuesdays")
	if mine < 0 || team < 0 || team < mine {
		t.Errorf("team notes missing or before the person's own memory:\n%s", got)
	}
	in.NoMemory = true
	if got := SystemPrompt(in); strings.Contains(got, "Tuesdays") {
		t.Errorf("an agent with memory off sees the team notes:\n%s", got)
	}
	in.NoMemory, in.Team = false, nil
	if got := SystemPrompt(in); strings.Contains(got, "Team notes") {
		t.Errorf("a place without notes has a team section:\n%s", got)
	}
}
