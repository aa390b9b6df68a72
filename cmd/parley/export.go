package main

import (
	"bytes"
	"context"
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

	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/export"
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
			list := make([]export.Header, len(cs))
			for i, c := range cs {
				list[i] = export.HeaderOf(c, nil)
			}
			return fmt.Sprintf("%d conversations", len(cs)), export.WriteJSON(w, list)
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
	x := export.New(c, entries, now)
	what := fmt.Sprintf("%d messages of conversation %s", len(x.Messages), c.ID)
	if o.format == "json" {
		return what, export.WriteJSON(w, x)
	}
	return what, x.Markdown(w)
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
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", c.ID, c.UpdatedAt.UTC().Format(time.RFC3339), c.Messages, about)
	}
	return tw.Flush()
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
