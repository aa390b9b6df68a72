package bot

import (
	"github.com/parleybot/parley/chat"
	"slices"
	"testing"
)

// The catalogue of commands lives with the adapter contract (platforms
// register it) and what runs each lives here: the two name the same
// commands, so no menu offers a command nobody runs and none runs unlisted.
func TestEveryCommandRunsAndIsListed(t *testing.T) {
	var listed []string
	for _, c := range chat.Commands() {
		listed = append(listed, c.Name)
		if _, ok := findCommand(c.Name); !ok {
			t.Errorf("/%s is listed but nothing runs it", c.Name)
		}
	}
	for _, e := range commandTable() {
		if !slices.Contains(listed, e.name) {
			t.Errorf("/%s runs but is not listed", e.name)
		}
	}
	if _, ok := findCommand("start"); !ok {
		t.Error("/start no longer reaches /help")
	}
}
