package bot

import (
	"github.com/parleybot/parley/chat"
	"testing"
)

// TestCommandOfMessageCarriesFiles: a command typed with a file attached
// ("/kb add" with a document) hands the file to the command.
func TestCommandOfMessageCarriesFiles(t *testing.T) {
	files := []chat.File{{ID: "F1", Name: "handbook.pdf", MIME: "application/pdf", Size: 42, URL: "https://files.slack.com/x"}}
	m := chat.Message{Key: "k1", Thread: chat.Thread{Platform: "slack", Chat: "C1"}, User: chat.User{Platform: "slack", ID: "U1"},
		Text: "/kb add", Direct: true, Files: files}
	name, args, ok := chat.ParseCommand(m.Text)
	if !ok {
		t.Fatal("not parsed as a command")
	}
	c := commandOf(m, name, args)
	if c.Name != "kb" || len(c.Args) != 1 || c.Args[0] != "add" || c.Key != "k1" || !c.Direct ||
		len(c.Files) != 1 || c.Files[0] != files[0] {
		t.Errorf("command = %+v", c)
	}
	if c := commandOf(chat.Message{Text: "/help"}, "help", nil); c.Files != nil {
		t.Errorf("files of a message without any: %v", c.Files)
	}
}
