//go:build sqlite_fts5

package main

// End to end on Telegram, the knowledge base: a person attaches a runbook
// with /kb add, then asks; the model searches it with kb_search and cites
// the passage it was given. The real adapter against telegramtest, the
// whole runtime over SQLite with FTS5, llmtest as the model.

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// failoverRunbook's line 7 says how to promote the replica. Passages of
// 5 lines overlapping by 1 (kb.chunk_lines, kb.chunk_overlap) are lines
// 1-5, 5-9, 9-13 and 13-14: the answer is in 5-9.
const failoverRunbook = `# Failover runbook

Use this when the primary database is down.

## Promote the replica

On the replica host run pg_ctl promote -D /var/lib/postgresql/data as postgres.

Then point DATABASE_URL at the replica and restart the app.

## Afterwards

Rebuild the old primary as a new replica.
Write up the incident in the ops channel.
`

const promoteLine = "On the replica host run pg_ctl promote -D /var/lib/postgresql/data as postgres."

// citation is how kb_search heads a passage: "[1] failover.md:5-9 (score …)".
var citation = regexp.MustCompile(`failover\.md:(\d+)-(\d+) \(score`)

// TestTelegramKBAddThenCite: a document sent with the caption /kb add is
// downloaded and added; asked about it, the model is offered kb_search
// (its system prompt says so), and what the search returns is the passage
// holding the answer, headed by its source and line range; the answer
// citing it reaches the chat.
func TestTelegramKBAddThenCite(t *testing.T) {
	t.Parallel()
	w := startTelegram(t, map[string]string{"PARLEY_KB_CHUNK_LINES": "5", "PARLEY_KB_CHUNK_OVERLAP": "1"}, nil)
	ctx := waitCtx(t)

	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "/kb add",
		Document: &telegramtest.Attachment{Name: "failover.md", MIME: "text/markdown", Data: []byte(failoverRunbook)}})
	if err := w.tg.WaitFor(ctx, func() bool {
		for _, m := range w.tg.BotMessages(tgAna) {
			if strings.Contains(m.Visible, "failover.md: added (4 passages)") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("/kb add was not answered: %v; the bot shows %+v", err, w.tg.BotMessages(tgAna))
	}
	if d := w.tg.Downloads(); len(d) != 1 {
		t.Fatalf("downloads %+v, want the document once", d)
	}
	if n := len(w.model.Requests()); n != 0 {
		t.Fatalf("/kb add asked the model %d times", n)
	}

	w.model.Enqueue(
		llmtest.ToolCall("s1", "kb_search", `{"query":"promote replica"}`),
		llmtest.Text("Run `pg_ctl promote` (failover.md:5-9)."),
	)
	w.tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "how do I promote the replica?"})
	if err := w.tg.WaitFor(ctx, func() bool {
		for _, m := range w.tg.BotMessages(tgAna) {
			if strings.Contains(m.Visible, "pg_ctl promote (failover.md:5-9).") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the cited answer never reached the chat: %v; the bot shows %+v", err, w.tg.BotMessages(tgAna))
	}

	reqs := w.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want the question and the search's result", len(reqs))
	}
	if system := reqs[0].LastText("system"); !strings.Contains(system, "kb_search") {
		t.Errorf("the system prompt does not mention kb_search:\n%s", system)
	}
	// The search covered this person's DM, where the document was added,
	// and returned the passage with line 7, headed for citing.
	result := reqs[1].LastText("tool")
	found := false
	for _, m := range citation.FindAllStringSubmatchIndex(result, -1) {
		start, _ := strconv.Atoi(result[m[2]:m[3]])
		end, _ := strconv.Atoi(result[m[4]:m[5]])
		passage, _, _ := strings.Cut(result[m[1]:], "\n\n[")
		if start <= 7 && 7 <= end && strings.Contains(passage, promoteLine) {
			found = true
		}
	}
	if !found {
		t.Fatalf("kb_search gave the model no passage of failover.md holding line 7:\n%s", result)
	}
}
