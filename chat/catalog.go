package chat

import "strings"

// ParseCommand recognizes "/name args…" and "!name args…". A "/name@bot"
// suffix is dropped (Telegram groups). ok is false for ordinary text.
func ParseCommand(text string) (name string, args []string, ok bool) {
	text = strings.TrimSpace(text)
	if len(text) < 2 || (text[0] != '/' && text[0] != '!') {
		return "", nil, false
	}
	fields := strings.Fields(text[1:])
	if len(fields) == 0 {
		return "", nil, false
	}
	name, _, _ = strings.Cut(strings.ToLower(fields[0]), "@")
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return "", nil, false // "/etc/passwd is…" is text, not a command
		}
	}
	return name, fields[1:], name != ""
}

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

// Commands returns every command, in menu order: what platforms register
// (Telegram setMyCommands, Discord application commands, the Slack
// manifest) and what /help lists. The router runs each (bot/registry.go).
func Commands() []CommandSpec {
	return []CommandSpec{
		{
			Name: "memory", Description: "What I remember about you (only you see it)",
			Usage: []Usage{
				{"/memory", "what I remember about you (only you see it)"},
				{"/memory forget N", "forget entry N of that list"},
				{"/memory clear", "forget everything about you"},
				{"/memory team", "the team notes of this place (everyone here sees them)"},
				{"/memory team forget N", "forget team note N (its writers only)"},
				{"/memory team edit N text", "change team note N (its writers only)"},
			},
			Subcommands: []Subcommand{
				{Name: "show", Description: "Show what I remember about you (only you see it)"},
				{Name: "forget", Description: "Forget one entry of that list",
					Arg: &CommandArg{Name: "n", Description: "The entry's number, from /memory show", Integer: true, Min: 1}},
				{Name: "clear", Description: "Forget everything I remember about you"},
				{Name: "team", Description: "Show the team notes of this place"},
				{Name: "team-forget", Description: "Forget one team note (its writers only)",
					Arg: &CommandArg{Name: "n", Description: "The note's number, from /memory team", Integer: true, Min: 1}},
			},
		},
		{
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
		},
		{
			Name: "skills", Description: "What I have learnt here: list, show, forget, add",
			Usage: []Usage{
				{"/skills", "the skills I have learnt here, with how they do"},
				{"/skills show N", "skill N's steps"},
				{"/skills forget N", "remove skill N (an admin; in a direct chat, you)"},
				{"/skills history", "what reflection changed here"},
				{"/skills undo N", "put back change N of that list (an admin; in a direct chat, you)"},
				{"/skills add PATH|URL", "install a skill in the open Agent Skills format (admins)"},
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
				{Name: "add", Description: "Install a skill (admins)",
					Arg: &CommandArg{Name: "source", Description: "A skill folder on the server, or a SKILL.md's URL"}},
			},
		},
		{
			Name: "reflect", Description: "Reflect on this place now and learn (admins)",
		},
		{
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
		},
		{
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
		},
		{
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
		},
		{
			Name: "new", Description: "Start a fresh conversation here",
			Usage: []Usage{{"/new", "start a fresh conversation here"}},
		},
		{
			Name: "stop", Description: "Stop the answer being written here",
			Usage: []Usage{{"/stop", "stop the answer being written here"}},
		},
		{
			Name: "pause", Description: "Pause the task running here after its current step",
			Usage: []Usage{{"/pause", "pause the task running here after its current step"}},
		},
		{
			Name: "resume", Description: "Continue the paused task here",
			Usage: []Usage{{"/resume", "continue the task here (its author, the conversation's starter or an admin)"}},
		},
		{
			Name: "worklog", Description: "The work log of the task here (only you see it)",
			Usage: []Usage{{"/worklog", "the task's steps, checks and state changes (only you see it)"}},
		},
		{
			Name: "status", Description: "Model, context use, session size and the task's plan",
			Usage: []Usage{{"/status", "model, context use, session size; the task's plan and last steps"}},
		},
		{
			Name: "agent", Description: "Which agent answers here, and why: its model and tools",
			Usage: []Usage{
				{"/agent", "which agent answers here and why (the binding), its model and tools"},
				{"/agent use NAME", "bind this channel or chat to agent NAME (admins)"},
				{"/agent reset", "undo that (admins)"},
			},
			Subcommands: []Subcommand{
				{Name: "show", Description: "Which agent answers here and why"},
				{Name: "use", Description: "Bind this channel or chat to an agent (admins)",
					Arg: &CommandArg{Name: "name", Description: "The agent's name, from /agent"}},
				{Name: "reset", Description: "Undo the binding made here (admins)"},
			},
		},
		{
			Name: "model", Description: "This conversation's model, and switching it to another allowed one",
			Usage: []Usage{
				{"/model", "this conversation's model and the ones it may switch to"},
				{"/model NAME", "switch this conversation to model NAME (its starter or an admin)"},
				{"/model reset", "back to the agent's model"},
			},
			Subcommands: []Subcommand{
				{Name: "show", Description: "This conversation's model and the allowed ones"},
				{Name: "use", Description: "Switch this conversation to a model (its starter or an admin)",
					Arg: &CommandArg{Name: "name", Description: "The model, as /model lists it"}},
				{Name: "reset", Description: "Back to the agent's model"},
			},
		},
		{
			Name: "usage", Description: "What turns cost, by person, agent and channel (admins)",
			Usage: []Usage{{"/usage", "cost today, over 7 and 30 days, by person, agent and channel (admins)"}},
		},
		{
			Name: "console", Description: "A private link to the web console: what I keep about you",
			Usage: []Usage{{"/console", "a one-time link to the web console, sent to you alone (admins: the admin view)"}},
		},
		{
			Name: "help", Description: "What I can do and the commands I know",
			Usage: []Usage{{"/help", "this list"}},
		},
	}
}
