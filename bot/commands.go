package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// SharedCommands runs the commands every platform shares (/memory, /new, /help); the
// router answers the rest (/stop, /status) itself.
type SharedCommands struct {
	sessions SessionMap
	memory   agent.MemoryStore
	limits   agent.MemoryLimits
	// audit records a change to a person's memory; the router that runs
	// the commands sets it to its audit log (nil: none kept).
	audit func(ctx context.Context, e AuditEntry)
}

// NewSharedCommands returns the shared commands over the session map and the memory
// store; limits are the caps /memory shows.
func NewSharedCommands(sessions SessionMap, memory agent.MemoryStore, limits agent.MemoryLimits) *SharedCommands {
	return &SharedCommands{sessions: sessions, memory: memory, limits: limits}
}

// ErrUnknownCommand is returned for commands Parley does not have.
var ErrUnknownCommand = errors.New("unknown command")

// Command runs a shared command and returns its answer as Markdown. Memory
// commands act only on the caller's own memory: there is no argument that
// names another user.
func (b *SharedCommands) Command(ctx context.Context, c chat.Command) (string, error) {
	switch c.Name {
	case "help", "start":
		return HelpText(), nil
	case "new":
		if _, err := b.sessions.NewSession(ctx, c.Thread); err != nil {
			return "", fmt.Errorf("new session: %w", err)
		}
		return "Started a new conversation. I still remember what you asked me to (see /memory).", nil
	case "memory":
		return b.memoryCommand(ctx, c.User, c.Args)
	}
	return "", fmt.Errorf("%w /%s: try /help", ErrUnknownCommand, c.Name)
}

func (b *SharedCommands) memoryCommand(ctx context.Context, u chat.User, args []string) (string, error) {
	if len(args) == 0 {
		m, err := b.memory.Memory(ctx, u.Key())
		if err != nil {
			return "", fmt.Errorf("load memory: %w", err)
		}
		return FormatMemory(m, b.limits), nil
	}
	switch strings.ToLower(args[0]) {
	case "forget":
		if len(args) != 2 {
			return "Usage: /memory forget N (N from /memory)", nil
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return fmt.Sprintf("%q is not an entry number: see /memory", args[1]), nil
		}
		return b.forget(ctx, u, n)
	case "clear":
		if len(args) < 2 || args[1] != "yes" {
			return "This forgets everything I remember about you. Send `/memory clear yes` to confirm.", nil
		}
		erased, err := EraseMemory(ctx, b.memory, u.Key())
		if err != nil {
			return "", fmt.Errorf("clear memory: %w", err)
		}
		b.record(ctx, AuditEntry{Actor: u.Key(), Action: "memory.clear", Target: u.Key(), Detail: fmt.Sprintf("%d erased", erased), Via: "chat"})
		return "Done: I no longer remember anything about you.", nil
	}
	return "Usage: /memory, /memory forget N, /memory clear", nil
}

// forget removes entry n as numbered by FormatMemory: profile first, then
// facts.
func (b *SharedCommands) forget(ctx context.Context, u chat.User, n int) (string, error) {
	m, err := b.memory.Memory(ctx, u.Key())
	if err != nil {
		return "", fmt.Errorf("load memory: %w", err)
	}
	target, idx := agent.Profile, n-1
	if idx >= len(m.Profile) {
		target, idx = agent.Facts, idx-len(m.Profile)
	}
	if idx >= len(m.Entries(target)) {
		return fmt.Sprintf("There is no entry %d: see /memory.", n), nil
	}
	want := m.Entries(target)[idx]
	removed, err := ForgetEntry(ctx, b.memory, u.Key(), target, want)
	if err != nil {
		return "", fmt.Errorf("forget: %w", err)
	}
	if removed {
		// Which list, never the entry: it is the person's.
		b.record(ctx, AuditEntry{Actor: u.Key(), Action: "memory.forget", Target: u.Key(), Detail: string(target), Via: "chat"})
	}
	if !removed {
		return fmt.Sprintf("Entry %d changed in the meantime: see /memory.", n), nil
	}
	return fmt.Sprintf("Forgot: %s", want), nil
}

// record adds e to the audit log, if one is kept.
func (b *SharedCommands) record(ctx context.Context, e AuditEntry) {
	if b.audit != nil {
		b.audit(ctx, e)
	}
}

// ForgetEntry removes the entry reading want from a person's list target,
// by content, not position: the list may have changed since whoever asked
// looked at it. removed is false when it is not there (any more).
func ForgetEntry(ctx context.Context, memory agent.MemoryStore, userKey string, target agent.MemoryTarget, want string) (removed bool, err error) {
	err = memory.EditMemory(ctx, userKey, target, func(e []string) ([]string, error) {
		for i, v := range e {
			if v == want {
				removed = true
				return append(e[:i:i], e[i+1:]...), nil
			}
		}
		return e, nil
	})
	return removed, err
}

// EraseMemory erases everything Parley remembers about a person, both
// lists: what /memory clear, parley memory erase and the console's People
// page do. erased counts the entries there were, as each list was
// emptied, so it is what went even if the lists changed since whoever
// asked looked at them.
func EraseMemory(ctx context.Context, memory agent.MemoryStore, userKey string) (erased int, err error) {
	for _, t := range []agent.MemoryTarget{agent.Profile, agent.Facts} {
		err := memory.EditMemory(ctx, userKey, t, func(e []string) ([]string, error) {
			erased += len(e)
			return nil, nil
		})
		if err != nil {
			return erased, fmt.Errorf("erase %s of %s: %w", t, userKey, err)
		}
	}
	return erased, nil
}

// FormatMemory renders a user's memory as a numbered Markdown list.
func FormatMemory(m agent.Memory, limits agent.MemoryLimits) string {
	if m.Empty() {
		return "I don't remember anything about you yet. Tell me something worth keeping, e.g. \"remember that I prefer Go\"."
	}
	var b strings.Builder
	n := 0
	for _, t := range []agent.MemoryTarget{agent.Profile, agent.Facts} {
		entries := m.Entries(t)
		title := "Profile"
		if t == agent.Facts {
			title = "Facts"
		}
		fmt.Fprintf(&b, "**%s** (%d of %d characters)\n", title, agent.Size(entries), limits.Cap(t))
		if len(entries) == 0 {
			b.WriteString("(empty)\n")
		}
		for _, e := range entries {
			n++
			fmt.Fprintf(&b, "%d. %s\n", n, e)
		}
		b.WriteByte('\n')
	}
	b.WriteString("Forget one with /memory forget N.")
	return b.String()
}
