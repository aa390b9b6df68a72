package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres"
)

// parley export --conversation <id>: one conversation out of Parley, as
// Markdown or JSON, for an operator answering a person's request about
// their data or keeping a record; parley export --list finds the id. A
// conversation is named by its session id, as /status shows it ("Session
// 3f2a9c1e") and the logs do ("session"): the whole id or its first 8 or
// more characters. The sibling of parley memory (memory.go).

// conversationStore is what parley export reads; both engines offer it.
type conversationStore interface {
	Conversations(ctx context.Context, f store.ConversationFilter) ([]store.Conversation, error)
	Transcript(ctx context.Context, sessionID string) ([]store.TranscriptEntry, error)
}

var (
	_ conversationStore = (*store.DB)(nil)
	_ conversationStore = (*postgres.DB)(nil)
)

// exportFormats are --format's values; the first is the default.
var exportFormats = []string{"markdown", "json"}

// exportClip is how many characters of a tool call's arguments or a tool's
// result an export shows: tools are shown briefly, people's words whole.
const exportClip = 200

type exportOptions struct {
	conversation, format, out, user string
	list                            bool
}

func newExportCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export one conversation as Markdown or JSON (--conversation <id>), or list them (--list)",
		Long: "parley export --conversation <id> [--format markdown|json] [--out FILE] writes one conversation:\n" +
			"who wrote what, when (UTC), tools briefly, pictures by name. parley export --list [--user platform:id]\n" +
			"lists the conversations, the most recently active first, with their ids. The id is the session id\n" +
			"/status shows (its first 8 characters are enough). --out writes a file only you can read.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			cfg, db, err := commandStore(cmd.Context(), load)
			if err != nil {
				return err
			}
			defer db.Close()
			cs, ok := db.(conversationStore)
			if !ok {
				return fmt.Errorf("the %s store cannot export conversations", cfg.Store.Driver)
			}
			var out bytes.Buffer
			what, err := o.render(cmd.Context(), &out, cs, storeName(cfg), time.Now().UTC())
			if err != nil {
				return err
			}
			if o.out == "" {
				_, err := e.stdout.Write(out.Bytes())
				return err
			}
			if err := writePrivate(o.out, out.Bytes()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "Wrote %s to %s (readable by you alone).\n", what, o.out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.conversation, "conversation", "", "the conversation: its session id as /status shows it (8 or more of its 32 hex characters)")
	f.BoolVar(&o.list, "list", false, "list the conversations, the most recently active first")
	f.StringVar(&o.user, "user", "", "with --list: only the conversations of this person, as platform:id (e.g. slack:U0123ABC)")
	f.StringVar(&o.format, "format", exportFormats[0], "markdown or json")
	f.StringVar(&o.out, "out", "", "write to this file (mode 0600, replaced whole) instead of standard output")
	return cmd
}

// check checks the flags before anything is opened.
func (o *exportOptions) check() error {
	o.format = strings.ToLower(strings.TrimSpace(o.format))
	if !slices.Contains(exportFormats, o.format) {
		return fmt.Errorf("--format %q: want one of %s", o.format, strings.Join(exportFormats, ", "))
	}
	switch {
	case o.list && o.conversation != "":
		return errors.New("give either --conversation <id> or --list, not both")
	case !o.list && o.conversation == "":
		return errors.New("say which conversation: parley export --conversation <id>; find the id with parley export --list")
	case !o.list && o.user != "":
		return errors.New("--user goes with --list: parley export --list --user platform:id")
	}
	if o.user != "" {
		key, err := memoryUser(o.user)
		if err != nil {
			return err
		}
		o.user = key
	}
	if o.conversation != "" {
		id, err := conversationID(o.conversation)
		if err != nil {
			return err
		}
		o.conversation = id
	}
	return nil
}

// conversationID checks a --conversation value: a session id, whole (32
// hex characters) or its first 8 or more, as /status shows it.
func conversationID(s string) (string, error) {
	id := strings.ToLower(strings.TrimSpace(s))
	ok := len(id) >= 8 && len(id) <= 32
	for _, r := range id {
		ok = ok && (r >= '0' && r <= '9' || r >= 'a' && r <= 'f')
	}
	if !ok {
		return "", fmt.Errorf("--conversation %q: want a session id, 8 to 32 hex characters as /status shows it (\"Session 3f2a9c1e\"); parley export --list lists them", s)
	}
	return id, nil
}

// render writes what o asks for to w and says what it was, for the line
// after a file is written.
func (o *exportOptions) render(ctx context.Context, w io.Writer, db conversationStore, where string, now time.Time) (string, error) {
	if o.list {
		cs, err := db.Conversations(ctx, store.ConversationFilter{User: o.user})
		if err != nil {
			return "", err
		}
		if o.format == "json" {
			list := make([]exportConversation, len(cs))
			for i, c := range cs {
				list[i] = conversationHeader(c, nil)
			}
			return fmt.Sprintf("%d conversations", len(cs)), writeJSON(w, list)
		}
		return fmt.Sprintf("%d conversations", len(cs)), printConversations(w, cs, o.user)
	}
	c, err := findConversation(ctx, db, o.conversation, where)
	if err != nil {
		return "", err
	}
	entries, err := db.Transcript(ctx, c.ID)
	if err != nil {
		return "", err
	}
	x := newExport(c, entries, now)
	what := fmt.Sprintf("%d messages of conversation %s", len(x.Messages), c.ID)
	if o.format == "json" {
		return what, writeJSON(w, x)
	}
	return what, x.markdown(w)
}

// findConversation resolves a checked id or prefix to one conversation.
func findConversation(ctx context.Context, db conversationStore, id, where string) (store.Conversation, error) {
	cs, err := db.Conversations(ctx, store.ConversationFilter{Prefix: id, Limit: 2})
	if err != nil {
		return store.Conversation{}, err
	}
	switch len(cs) {
	case 0:
		return store.Conversation{}, fmt.Errorf("no conversation %s in %s: find its id with parley export --list (--user platform:id for one person's)", id, where)
	case 1:
		return cs[0], nil
	default:
		return store.Conversation{}, fmt.Errorf("more than one conversation starts with %s: give more of its id (parley export --list)", id)
	}
}

// conversationExport is what parley export --format json prints: see
// docs/operations.md, "A person's data", for the shape.
type conversationExport struct {
	Conversation exportConversation `json:"conversation"`
	ExportedAt   string             `json:"exported_at"`
	Messages     []exportMessage    `json:"messages"`
}

type exportConversation struct {
	ID string `json:"id"`
	// Name is the conversation as chat.Thread names it in logs:
	// platform:space:chat:thread.
	Name         string `json:"name"`
	Platform     string `json:"platform"`
	Space        string `json:"space"`
	Chat         string `json:"chat"`
	Thread       string `json:"thread"`
	StartedBy    string `json:"started_by,omitempty"`
	HelperOf     string `json:"helper_of,omitempty"`
	Created      string `json:"created"`
	LastActivity string `json:"last_activity"`
	// From and To are the times of the first and last message kept.
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"`
	Messages int    `json:"messages"`
}

type exportMessage struct {
	Role   string        `json:"role"`
	Author *exportAuthor `json:"author,omitempty"`
	Time   string        `json:"time"`
	Text   string        `json:"text"`
	// Summary marks the message a compaction left in place of the
	// messages before it.
	Summary   bool             `json:"summary,omitempty"`
	Model     string           `json:"model,omitempty"`
	ToolCalls []exportToolCall `json:"tool_calls,omitempty"`
	Tool      string           `json:"tool,omitempty"`
	Error     bool             `json:"error,omitempty"`
	Pictures  []exportPicture  `json:"pictures,omitempty"`
}

type exportAuthor struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type exportToolCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type exportPicture struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
}

// rfc3339 is t in UTC, to the second.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func conversationHeader(c store.Conversation, entries []store.TranscriptEntry) exportConversation {
	h := exportConversation{
		ID: c.ID, Name: c.Thread.String(),
		Platform: c.Thread.Platform, Space: c.Thread.Space, Chat: c.Thread.Chat, Thread: c.Thread.ID,
		StartedBy: c.Starter, HelperOf: c.HelperOf,
		Created: rfc3339(c.CreatedAt), LastActivity: rfc3339(c.UpdatedAt), Messages: c.Messages,
	}
	if len(entries) > 0 {
		h.From, h.To, h.Messages = rfc3339(entries[0].At), rfc3339(entries[len(entries)-1].At), len(entries)
	}
	return h
}

// newExport turns a transcript into an export: people's words whole, what
// only the model sees (the time preamble, reasoning) left out, tools
// clipped, pictures by name.
func newExport(c store.Conversation, entries []store.TranscriptEntry, now time.Time) conversationExport {
	ids := authorIDs(entries)
	x := conversationExport{Conversation: conversationHeader(c, entries), ExportedAt: rfc3339(now), Messages: []exportMessage{}}
	for _, e := range entries {
		m := exportMessage{Role: string(e.Role), Time: rfc3339(e.At), Text: e.Text}
		switch e.Role {
		case llm.RoleUser:
			if strings.HasPrefix(e.Text, agent.SummaryPrefix) {
				m.Summary, m.Text = true, strings.TrimPrefix(e.Text, agent.SummaryPrefix)
				break
			}
			id := e.AuthorKey
			if id == "" {
				id = ids[e.Author]
			}
			m.Author = &exportAuthor{ID: id, Name: e.Author}
		case llm.RoleAssistant:
			m.Model = e.Model
			for _, tc := range e.ToolCalls {
				m.ToolCalls = append(m.ToolCalls, exportToolCall{Name: tc.Name, Arguments: clipText(string(tc.Arguments), exportClip)})
			}
		case llm.RoleTool:
			m.Tool, m.Error, m.Text = e.ToolName, e.IsError, clipText(e.Text, exportClip)
		}
		for _, img := range e.Images {
			m.Pictures = append(m.Pictures, exportPicture{Name: img.Name, Type: img.MIME, Width: img.Width, Height: img.Height})
		}
		x.Messages = append(x.Messages, m)
	}
	return x
}

// authorIDs maps the names of the conversation's people to their ids, as
// their recorded turns tell, for their messages that started no turn of
// their own (those sent while an answer was being written). A name two
// people share maps to no one.
func authorIDs(entries []store.TranscriptEntry) map[string]string {
	ids := map[string]string{}
	for _, e := range entries {
		if e.Role != llm.RoleUser || e.AuthorKey == "" || e.Author == "" {
			continue
		}
		if id, seen := ids[e.Author]; seen && id != e.AuthorKey {
			ids[e.Author] = "" // ambiguous
		} else if !seen {
			ids[e.Author] = e.AuthorKey
		}
	}
	return ids
}

// markdown writes x for people to read: a header, then each message under
// a heading with its time and author.
func (x conversationExport) markdown(w io.Writer) error {
	var b strings.Builder
	c := x.Conversation
	fmt.Fprintf(&b, "# Conversation %s\n\n", c.ID)
	fmt.Fprintf(&b, "- Conversation: %s (platform:space:chat:thread)\n", codeSpan(c.Name))
	fmt.Fprintf(&b, "- Platform: %s\n", c.Platform)
	if c.Space != "" {
		fmt.Fprintf(&b, "- Space (workspace or guild): %s\n", c.Space)
	}
	fmt.Fprintf(&b, "- Chat (channel or chat): %s\n", orNone(c.Chat, "none"))
	fmt.Fprintf(&b, "- Thread: %s\n", orNone(c.Thread, "none (a continuing conversation)"))
	if c.StartedBy != "" {
		fmt.Fprintf(&b, "- Started by: %s\n", c.StartedBy)
	}
	if c.HelperOf != "" {
		fmt.Fprintf(&b, "- A task's helper, working for conversation %s\n", c.HelperOf)
	}
	if c.From != "" {
		fmt.Fprintf(&b, "- Messages: %d, from %s to %s (UTC)\n", c.Messages, c.From, c.To)
	} else {
		fmt.Fprintf(&b, "- Messages: none (started %s UTC)\n", c.Created)
	}
	fmt.Fprintf(&b, "- Exported: %s (UTC)\n", x.ExportedAt)
	for _, m := range x.Messages {
		fmt.Fprintf(&b, "\n### %s · %s\n\n", m.Time, m.who())
		if m.Role == "tool" {
			b.WriteString(quote(orNone(m.Text, "(empty)")))
		} else if m.Text != "" {
			b.WriteString(quote(m.Text))
		}
		if len(m.ToolCalls) > 0 || len(m.Pictures) > 0 {
			b.WriteString("\n")
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "- Tool call: %s %s\n", codeSpan(tc.Name), codeSpan(tc.Arguments))
		}
		for _, p := range m.Pictures {
			fmt.Fprintf(&b, "- Picture: %s\n", p.describe())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// who is a message's heading after its time.
func (m exportMessage) who() string {
	switch {
	case m.Summary:
		return "Summary of the earlier conversation (compaction)"
	case m.Author != nil:
		switch a := m.Author; {
		case a.Name != "" && a.ID != "":
			return a.Name + " (" + a.ID + ")"
		case a.Name != "":
			return a.Name
		case a.ID != "":
			return a.ID
		}
		return "someone (not on record)"
	case m.Role == "assistant" && m.Model != "":
		return "Parley (" + m.Model + ")"
	case m.Role == "assistant":
		return "Parley"
	case m.Error:
		return "Tool " + m.Tool + " (failed)"
	default:
		return "Tool " + m.Tool + " (result)"
	}
}

func (p exportPicture) describe() string {
	s := orNone(p.Name, "unnamed") + " (" + p.Type
	if p.Width > 0 && p.Height > 0 {
		s += fmt.Sprintf(", %d×%d", p.Width, p.Height)
	}
	return s + ")"
}

// quote is text as a Markdown block quote, so that nothing a person wrote
// (a heading, a rule) can pass for the export's own structure; the text
// is as written after each line's "> ".
func quote(text string) string {
	var b strings.Builder
	for line := range strings.Lines(strings.TrimRight(text, "\n") + "\n") {
		if line == "\n" {
			b.WriteString(">\n")
		} else {
			b.WriteString("> " + line)
		}
	}
	return b.String()
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// codeSpan is s as Markdown code, fenced with more backticks than any run
// in it.
func codeSpan(s string) string {
	if s == "" {
		return "``"
	}
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// printConversations writes parley export --list's table.
func printConversations(w io.Writer, cs []store.Conversation, user string) error {
	if len(cs) == 0 {
		if user != "" {
			_, err := fmt.Fprintf(w, "No conversations of %s on record.\n", user)
			return err
		}
		_, err := fmt.Fprintln(w, "No conversations yet.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLAST ACTIVITY (UTC)\tMESSAGES\tCONVERSATION")
	for _, c := range cs {
		about := c.Thread.String()
		if c.Starter != "" {
			about += ", started by " + c.Starter
		}
		if c.HelperOf != "" {
			about += ", a task's helper for " + c.HelperOf
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", c.ID, rfc3339(c.UpdatedAt), c.Messages, about)
	}
	return tw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writePrivate writes data to path whole or not at all, readable by its
// owner alone: people's words are in it.
func writePrivate(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".parley-export-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	for _, step := range []func() error{
		func() error { return tmp.Chmod(0o600) },
		func() error { _, err := tmp.Write(data); return err },
		tmp.Sync,
	} {
		if err := step(); err != nil {
			tmp.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
