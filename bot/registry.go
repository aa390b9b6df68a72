package bot

import (
	"context"
	"strings"
)

// The registries: every command and every kind of button Parley has,
// declared once. Dispatch, /help, Telegram's command menu, Discord's
// application commands and the Slack manifest all read the command table;
// every button payload's prefix is declared in the action table, and a
// click is routed by it.

// CommandSpec describes a command as menus, help and manifests show it.
type CommandSpec struct {
	Name        string // lowercase, no slash: "memory"
	Description string // at most 100 characters (Discord's limit)
	// Usage are the lines of /help: each form with what it does.
	Usage []Usage
	// Subcommands, for platforms that declare them (Discord); none means
	// the command takes no arguments there.
	Subcommands []Subcommand
}

// Usage is one line of /help.
type Usage struct {
	Form  string // "/memory forget N"
	Means string
}

// Subcommand is one form of a command with subcommands.
type Subcommand struct {
	Name        string
	Description string
	// Arg is the subcommand's one argument, if it has one.
	Arg *CommandArg
}

// CommandArg is a subcommand's argument.
type CommandArg struct {
	Name        string
	Description string
	Integer     bool
	Min         int
}

// commandEntry is a command and what runs it.
type commandEntry struct {
	CommandSpec
	aliases []string
	run     func(r *Router, ctx context.Context, c Command) error
}

// commandTable is every command, in menu order.
func commandTable() []commandEntry {
	return []commandEntry{
		{CommandSpec: CommandSpec{
			Name: "memory", Description: "What I remember about you (only you see it)",
			Usage: []Usage{
				{"/memory", "what I remember about you (only you see it)"},
				{"/memory forget N", "forget entry N of that list"},
				{"/memory clear", "forget everything about you"},
			},
			Subcommands: []Subcommand{
				{Name: "show", Description: "Show what I remember about you (only you see it)"},
				{Name: "forget", Description: "Forget one entry of that list",
					Arg: &CommandArg{Name: "n", Description: "The entry's number, from /memory show", Integer: true, Min: 1}},
				{Name: "clear", Description: "Forget everything I remember about you"},
			},
		}, run: (*Router).cmdMemory},
		{CommandSpec: CommandSpec{
			Name: "kb", Description: "The team's documents I search: list, add, forget",
			Usage: []Usage{
				{"/kb", "the documents I search here"},
				{"/kb add <url>", "add a web page (or attach files to a message saying /kb add)"},
				{"/kb forget N", "remove document N of that list (whoever added it, or an admin)"},
			},
			Subcommands: []Subcommand{
				{Name: "list", Description: "The documents I search here"},
				{Name: "add", Description: "Add a web page to the knowledge base",
					Arg: &CommandArg{Name: "url", Description: "The page's address (http or https)"}},
				{Name: "forget", Description: "Remove one document",
					Arg: &CommandArg{Name: "n", Description: "The document's number, from /kb list", Integer: true, Min: 1}},
			},
		}, run: (*Router).cmdKB},
		{CommandSpec: CommandSpec{
			Name: "skills", Description: "What I have learnt here: list, show, forget",
			Usage: []Usage{
				{"/skills", "the skills I have learnt here, with how they do"},
				{"/skills show N", "skill N's steps"},
				{"/skills forget N", "remove skill N (an admin; in a direct chat, you)"},
				{"/skills history", "what reflection changed here"},
				{"/skills undo N", "put back change N of that list (an admin; in a direct chat, you)"},
				{"/reflect", "reflect on this place now (admins)"},
			},
			Subcommands: []Subcommand{
				{Name: "list", Description: "The skills I have learnt here"},
				{Name: "show", Description: "One skill's steps",
					Arg: &CommandArg{Name: "n", Description: "The skill's number, from /skills list", Integer: true, Min: 1}},
				{Name: "forget", Description: "Remove one skill",
					Arg: &CommandArg{Name: "n", Description: "The skill's number, from /skills list", Integer: true, Min: 1}},
				{Name: "history", Description: "What reflection changed here"},
				{Name: "undo", Description: "Put back one change",
					Arg: &CommandArg{Name: "n", Description: "The change's number, from /skills history", Integer: true, Min: 1}},
			},
		}, run: (*Router).cmdSkills},
		{CommandSpec: CommandSpec{
			Name: "reflect", Description: "Reflect on this place now and learn (admins)",
		}, run: (*Router).cmdReflect},
		{CommandSpec: CommandSpec{
			Name: "remind", Description: "Your reminders here: list, cancel",
			Usage: []Usage{
				{"/remind", "your reminders here (ask me in words to set one)"},
				{"/remind cancel N", "cancel reminder N of that list (yours; an admin, any)"},
			},
			Subcommands: []Subcommand{
				{Name: "list", Description: "Your reminders here"},
				{Name: "cancel", Description: "Cancel one reminder",
					Arg: &CommandArg{Name: "n", Description: "The reminder's number, from /remind list", Integer: true, Min: 1}},
			},
		}, run: (*Router).cmdRemind},
		{CommandSpec: CommandSpec{
			Name: "schedules", Description: "Scheduled work here: list, cancel, pause, resume",
			Usage: []Usage{
				{"/schedules", "the scheduled runs here, with their next run and last result"},
				{"/schedules cancel N", "cancel schedule N (its creator, or an admin)"},
				{"/schedules pause N", "pause schedule N"},
				{"/schedules resume N", "resume schedule N"},
			},
			Subcommands: []Subcommand{
				{Name: "list", Description: "The scheduled runs here"},
				{Name: "cancel", Description: "Cancel one schedule",
					Arg: &CommandArg{Name: "n", Description: "The schedule's number, from /schedules list", Integer: true, Min: 1}},
				{Name: "pause", Description: "Pause one schedule",
					Arg: &CommandArg{Name: "n", Description: "The schedule's number, from /schedules list", Integer: true, Min: 1}},
				{Name: "resume", Description: "Resume one schedule",
					Arg: &CommandArg{Name: "n", Description: "The schedule's number, from /schedules list", Integer: true, Min: 1}},
			},
		}, run: (*Router).cmdSchedules},
		{CommandSpec: CommandSpec{
			Name: "tz", Description: "Your time zone, for reminders: show or set",
			Usage: []Usage{
				{"/tz", "your time zone"},
				{"/tz Area/City", "set it, e.g. /tz Europe/Berlin"},
			},
			Subcommands: []Subcommand{
				{Name: "show", Description: "Your time zone"},
				{Name: "set", Description: "Set your time zone",
					Arg: &CommandArg{Name: "zone", Description: "An IANA time zone, e.g. Europe/Berlin"}},
			},
		}, run: (*Router).cmdTZ},
		{CommandSpec: CommandSpec{
			Name: "new", Description: "Start a fresh conversation here",
			Usage: []Usage{{"/new", "start a fresh conversation here"}},
		}, run: controlled((*Router).cmdShared)},
		{CommandSpec: CommandSpec{
			Name: "stop", Description: "Stop the answer being written here",
			Usage: []Usage{{"/stop", "stop the answer being written here"}},
		}, run: controlled((*Router).cmdStop)},
		{CommandSpec: CommandSpec{
			Name: "pause", Description: "Pause the task running here after its current step",
			Usage: []Usage{{"/pause", "pause the task running here after its current step"}},
		}, run: (*Router).cmdPause},
		{CommandSpec: CommandSpec{
			Name: "resume", Description: "Continue the paused task here",
			Usage: []Usage{{"/resume", "continue the task here (its author, the conversation's starter or an admin)"}},
		}, run: (*Router).cmdResume},
		{CommandSpec: CommandSpec{
			Name: "worklog", Description: "The work log of the task here (only you see it)",
			Usage: []Usage{{"/worklog", "the task's steps, checks and state changes (only you see it)"}},
		}, run: (*Router).cmdWorklog},
		{CommandSpec: CommandSpec{
			Name: "status", Description: "Model, context use, session size and the task's plan",
			Usage: []Usage{{"/status", "model, context use, session size; the task's plan and last steps"}},
		}, run: (*Router).cmdStatus},
		{CommandSpec: CommandSpec{
			Name: "help", Description: "What I can do and the commands I know",
			Usage: []Usage{{"/help", "this list"}},
		}, aliases: []string{"start"}, run: (*Router).cmdHelp},
	}
}

// Commands returns every command, in menu order: what platforms register
// (Telegram setMyCommands, Discord application commands, the Slack
// manifest).
func Commands() []CommandSpec {
	table := commandTable()
	out := make([]CommandSpec, len(table))
	for i, e := range table {
		out[i] = e.CommandSpec
	}
	return out
}

// MenuCommand is one command as platforms list it in their command menus.
type MenuCommand struct {
	Name        string
	Description string
}

// Menu returns the commands' names and descriptions, in menu order.
func Menu() []MenuCommand {
	var out []MenuCommand
	for _, c := range Commands() {
		out = append(out, MenuCommand{Name: c.Name, Description: c.Description})
	}
	return out
}

// HelpText is /help's answer, from the command table.
func HelpText() string {
	var lines []Usage
	width := 0
	for _, c := range Commands() {
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
		if e.Name == name {
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
	approveData       = "a:"  // approve an approval
	denyData          = "d:"  // deny an approval
	clearMemoryData   = "mc:" // confirm /memory clear
	saveMemoryData    = "ms:" // save a memory entry a tainted turn proposed
	discardMemoryData = "md:" // discard it
)

// actionEntry is a kind of button and what handles its clicks.
type actionEntry struct {
	prefix string
	handle func(r *Router, ctx context.Context, a Action) error
}

// actionTable is every kind of button.
func actionTable() []actionEntry {
	return []actionEntry{
		{approveData, (*Router).approvalClick},
		{denyData, (*Router).approvalClick},
		{clearMemoryData, (*Router).confirmClearMemory},
		{saveMemoryData, (*Router).memoryClick},
		{discardMemoryData, (*Router).memoryClick},
	}
}

// findAction returns the handler of a click's payload.
func findAction(data string) (actionEntry, bool) {
	if len(data) > MaxButtonData {
		return actionEntry{}, false
	}
	for _, e := range actionTable() {
		if strings.HasPrefix(data, e.prefix) {
			return e, true
		}
	}
	return actionEntry{}, false
}
