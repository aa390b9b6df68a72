// Package export writes one conversation out of Parley for people: as
// Markdown to read, or as JSON to keep (parley export, the web console;
// docs/operations.md, "A person's data", has the JSON's shape). People's
// words go whole; what only the model sees (the time preamble, reasoning)
// is left out; tools are clipped; pictures are named, not included.
package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
)

// Clip is how many characters of a tool call's arguments or a tool's
// result an export shows: tools are shown briefly, people's words whole.
const Clip = 200

// Conversation is what parley export --format json prints: see
// docs/operations.md, "A person's data", for the shape.
type Conversation struct {
	Conversation Header    `json:"conversation"`
	ExportedAt   string    `json:"exported_at"`
	Messages     []Message `json:"messages"`
}

type Header struct {
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

type Message struct {
	Role   string  `json:"role"`
	Author *Author `json:"author,omitempty"`
	Time   string  `json:"time"`
	Text   string  `json:"text"`
	// Summary marks the message a compaction left in place of the
	// messages before it.
	Summary   bool       `json:"summary,omitempty"`
	Model     string     `json:"model,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Tool      string     `json:"tool,omitempty"`
	Error     bool       `json:"error,omitempty"`
	Pictures  []Picture  `json:"pictures,omitempty"`
}

type Author struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type ToolCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type Picture struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
}

// rfc3339 is t in UTC, to the second.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func HeaderOf(c store.Conversation, entries []store.TranscriptEntry) Header {
	h := Header{
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

// New turns a transcript into an export: people's words whole, what
// only the model sees (the time preamble, reasoning) left out, tools
// clipped, pictures by name.
func New(c store.Conversation, entries []store.TranscriptEntry, now time.Time) Conversation {
	ids := authorIDs(entries)
	x := Conversation{Conversation: HeaderOf(c, entries), ExportedAt: rfc3339(now), Messages: []Message{}}
	for _, e := range entries {
		m := Message{Role: string(e.Role), Time: rfc3339(e.At), Text: e.Text}
		switch e.Role {
		case llm.RoleUser:
			if text, ok := agent.IsSummary(llm.Message{Role: e.Role, Text: e.Text}); ok {
				m.Summary, m.Text = true, text
				break
			}
			id := e.AuthorKey
			if id == "" {
				id = ids[e.Author]
			}
			m.Author = &Author{ID: id, Name: e.Author}
		case llm.RoleAssistant:
			m.Model = e.Model
			for _, tc := range e.ToolCalls {
				m.ToolCalls = append(m.ToolCalls, ToolCall{Name: tc.Name, Arguments: clipLine(string(tc.Arguments), Clip)})
			}
		case llm.RoleTool:
			m.Tool, m.Error, m.Text = e.ToolName, e.IsError, clipLine(e.Text, Clip)
		}
		for _, img := range e.Images {
			m.Pictures = append(m.Pictures, Picture{Name: img.Name, Type: img.MIME, Width: img.Width, Height: img.Height})
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
func (x Conversation) Markdown(w io.Writer) error {
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
func (m Message) who() string {
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

func (p Picture) describe() string {
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

// WriteJSON writes v (a Conversation, a list of Headers) as indented
// JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// clipLine keeps text to one line of at most n characters.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
