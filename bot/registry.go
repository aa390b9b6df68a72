package bot

import (
	"context"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
	"strings"
)

// The registries: every command and every kind of button Parley has,
// declared once. Dispatch, /help, Telegram's command menu, Discord's
// application commands and the Slack manifest all read the command table;
// every button payload's prefix is declared in the action table, and a
// click is routed by it.

// commandEntry is a command of Commands and what runs it.
type commandEntry struct {
	name    string
	aliases []string
	run     func(r *Router, ctx context.Context, c chat.Command) error
}

// commandTable is what runs each command of Commands, by name.
func commandTable() []commandEntry {
	return []commandEntry{
		{name: "memory", run: (*Router).cmdMemory},
		{name: "kb", run: (*Router).cmdKB},
		{name: "skills", run: (*Router).cmdSkills},
		{name: "reflect", run: (*Router).cmdReflect},
		{name: "remind", run: (*Router).cmdRemind},
		{name: "schedules", run: (*Router).cmdSchedules},
		{name: "tz", run: (*Router).cmdTZ},
		{name: "new", run: controlled((*Router).cmdShared)},
		{name: "stop", run: controlled((*Router).cmdStop)},
		{name: "pause", run: (*Router).cmdPause},
		{name: "resume", run: (*Router).cmdResume},
		{name: "worklog", run: (*Router).cmdWorklog},
		{name: "status", run: (*Router).cmdStatus},
		{name: "agent", run: (*Router).cmdAgent},
		{name: "model", run: (*Router).cmdModel},
		{name: "usage", run: (*Router).cmdUsage},
		{name: "console", run: (*Router).cmdConsole},
		{name: "help", aliases: []string{"start"}, run: (*Router).cmdHelp},
	}
}

// HelpText is /help's answer, from the command table.
func HelpText() string {
	var lines []chat.Usage
	width := 0
	for _, c := range chat.Commands() {
		for _, u := range c.Usage {
			lines = append(lines, u)
			width = max(width, len(u.Form))
		}
	}
	var b strings.Builder
	b.WriteString("Commands:")
	for _, u := range lines {
		b.WriteString("\n  " + u.Form + strings.Repeat(" ", width-len(u.Form)+3) + u.Means)
	}
	return b.String()
}

// findCommand returns the entry of name (or an alias of it).
func findCommand(name string) (commandEntry, bool) {
	for _, e := range commandTable() {
		if e.name == name {
			return e, true
		}
		for _, a := range e.aliases {
			if a == name {
				return e, true
			}
		}
	}
	return commandEntry{}, false
}

// Button payload prefixes, one per kind of button. A payload is a prefix
// and an opaque id, at most MaxButtonData bytes: everything the click
// needs is stored under the id, never in the payload.
const (
	clearMemoryData   = "mc:" // confirm /memory clear
	saveMemoryData    = "ms:" // save a memory entry a tainted turn proposed
	discardMemoryData = "md:" // discard it
	saveTeamData      = "ts:" // an admin saves a team note a non-writer suggested
	discardTeamData   = "tx:" // or discards it
)

// actionEntry is a kind of button and what handles its clicks.
type actionEntry struct {
	prefix string
	handle func(r *Router, ctx context.Context, a chat.Action) error
}

// actionTable is every kind of button.
func actionTable() []actionEntry {
	return []actionEntry{
		{approvals.ApproveData, (*Router).approvalClick},
		{approvals.DenyData, (*Router).approvalClick},
		{clearMemoryData, (*Router).confirmClearMemory},
		{saveMemoryData, (*Router).memoryClick},
		{discardMemoryData, (*Router).memoryClick},
		{saveTeamData, (*Router).teamClick},
		{discardTeamData, (*Router).teamClick},
	}
}

// findAction returns the handler of a click's payload.
func findAction(data string) (actionEntry, bool) {
	if len(data) > chat.MaxButtonData {
		return actionEntry{}, false
	}
	for _, e := range actionTable() {
		if strings.HasPrefix(data, e.prefix) {
			return e, true
		}
	}
	return actionEntry{}, false
}
