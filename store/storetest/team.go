package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent"
)

var teamTests = []test{
	{"UnknownPlaceIsEmpty", testTeamUnknownPlaceIsEmpty},
	{"EditKeepsAuthors", testTeamEditKeepsAuthors},
	{"PerPlace", testTeamPerPlace},
	{"EditErrorAborts", testTeamEditErrorAborts},
	{"RejectsBadArguments", testTeamRejectsBadArguments},
	{"EditConcurrent", testTeamEditConcurrent},
	{"OutlivesErasedAuthor", testTeamOutlivesErasedAuthor},
}

const teamPlace = "space:slack:T1"

// note is a team note as stored.
func note(content, author string) agent.TeamNote {
	return agent.TeamNote{Content: content, Author: author}
}

func testTeamUnknownPlaceIsEmpty(t *testing.T, s suite) {
	db := s.fresh(t)
	notes, err := db.TeamNotes(t.Context(), "space:slack:T404")
	if err != nil || notes == nil || len(notes) != 0 {
		t.Errorf("TeamNotes = %#v, %v; want an empty list", notes, err)
	}
}

// testTeamEditKeepsAuthors: a note keeps the author who wrote it until
// someone changes it; each step's notes are as listed.
func testTeamEditKeepsAuthors(t *testing.T, s suite) {
	db := s.fresh(t)
	steps := []struct {
		author string
		edit   func([]string) ([]string, error)
		want   []agent.TeamNote
	}{
		{"slack:UA", add("we deploy on Tuesdays"), []agent.TeamNote{note("we deploy on Tuesdays", "slack:UA")}},
		{"slack:UB", add("staging is eu-west-2"), []agent.TeamNote{note("we deploy on Tuesdays", "slack:UA"), note("staging is eu-west-2", "slack:UB")}},
		{"slack:UC", replace("we deploy on Tuesdays", "we deploy on Wednesdays"),
			[]agent.TeamNote{note("we deploy on Wednesdays", "slack:UC"), note("staging is eu-west-2", "slack:UB")}},
		{"slack:UA", remove("staging is eu-west-2"), []agent.TeamNote{note("we deploy on Wednesdays", "slack:UC")}},
		{"slack:UA", clearAll, []agent.TeamNote{}},
	}
	for i, st := range steps {
		if err := db.EditTeamNotes(t.Context(), teamPlace, st.author, st.edit); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		got, err := db.TeamNotes(t.Context(), teamPlace)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Fatalf("step %d: notes (-want +got):\n%s", i, diff)
		}
	}
}

// testTeamPerPlace: a place never sees another's notes, whatever their
// keys share.
func testTeamPerPlace(t *testing.T, s suite) {
	db := s.fresh(t)
	places := []string{"space:slack:T1", "space:slack:T2", "space:discord:T1", "space:telegram:-100"}
	for _, p := range places {
		if err := db.EditTeamNotes(t.Context(), p, "slack:UA", add("note of "+p)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range places {
		got, err := db.TeamNotes(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		if want := []agent.TeamNote{note("note of "+p, "slack:UA")}; !cmp.Equal(got, want) {
			t.Errorf("TeamNotes(%s) = %v, want %v", p, got, want)
		}
	}
}

func testTeamEditErrorAborts(t *testing.T, s suite) {
	db := s.fresh(t)
	if err := db.EditTeamNotes(t.Context(), teamPlace, "slack:UA", add("kept")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := db.EditTeamNotes(t.Context(), teamPlace, "slack:UB", func([]string) ([]string, error) { return []string{"lost"}, boom })
	if err != boom {
		t.Errorf("EditTeamNotes = %v, want the edit's error as is", err)
	}
	got, _ := db.TeamNotes(t.Context(), teamPlace)
	if want := []agent.TeamNote{note("kept", "slack:UA")}; !cmp.Equal(got, want) {
		t.Errorf("notes = %v, want %v", got, want)
	}
}

func testTeamRejectsBadArguments(t *testing.T, s suite) {
	db := s.fresh(t)
	for _, tc := range []struct{ place, author string }{{"", "slack:UA"}, {teamPlace, ""}} {
		if err := db.EditTeamNotes(t.Context(), tc.place, tc.author, add("x")); err == nil {
			t.Errorf("EditTeamNotes(%q, %q) = nil, want an error", tc.place, tc.author)
		}
	}
}

// testTeamEditConcurrent: writers on two handles lose no note, even the
// first edits of an empty list.
func testTeamEditConcurrent(t *testing.T, s suite) {
	db, reopen := s.open(t, Options{})
	dbs := []Store{db, reopen()}
	const writers, notes = 8, 5
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for n := range notes {
				if err := dbs[w%2].EditTeamNotes(t.Context(), teamPlace, fmt.Sprintf("slack:U%d", w), add(fmt.Sprintf("w%d-n%d", w, n))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, err := dbs[1].TeamNotes(t.Context(), teamPlace)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*notes {
		t.Errorf("%d notes, want %d", len(got), writers*notes)
	}
}

// testTeamOutlivesErasedAuthor: erasing a person's memory (/memory clear,
// parley memory erase) leaves the notes they wrote for the team.
func testTeamOutlivesErasedAuthor(t *testing.T, s suite) {
	db := s.fresh(t)
	if err := db.EditMemory(t.Context(), "slack:UA", agent.Facts, add("likes tea")); err != nil {
		t.Fatal(err)
	}
	if err := db.EditTeamNotes(t.Context(), teamPlace, "slack:UA", add("we deploy on Tuesdays")); err != nil {
		t.Fatal(err)
	}
	for _, target := range []agent.MemoryTarget{agent.Profile, agent.Facts} {
		if err := db.EditMemory(t.Context(), "slack:UA", target, clearAll); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := db.TeamNotes(t.Context(), teamPlace)
	if want := []agent.TeamNote{note("we deploy on Tuesdays", "slack:UA")}; !cmp.Equal(got, want) {
		t.Errorf("notes = %v, want %v", got, want)
	}
}
