package main

// The web console end to end (docs/console.md): Parley on the Telegram
// fake with the console on, driven in a real headless Chromium — a
// conversation shows with its tool call, a pending shell approval is
// approved from the console, the chat message says so and the command runs
// once; a person's link opens nothing of an admin's.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	bt "github.com/parleybot/parley/webconsole/browsertest"
)

var linkLine = regexp.MustCompile(`http://\S+/login/\S+`)

// consoleLink is a one-time link for user, from parley console login.
func consoleLink(t *testing.T, w *tgWorld, user string) string {
	t.Helper()
	out, errOut, err := subcommand(t, w.instance.cfg, newConsoleCmd, "console", "login", "--as", user)
	if err != nil {
		t.Fatalf("parley console login --as %s: %v\n%s", user, err, errOut)
	}
	link := linkLine.FindString(out)
	if link == "" {
		t.Fatalf("no link in %q", out)
	}
	return link
}

func TestConsoleApprovesOnTelegram(t *testing.T) {
	addr := freeAddr(t)
	ana, bo := fmt.Sprintf("telegram:%d", tgAna), fmt.Sprintf("telegram:%d", tgBo)
	w := startTelegram(t, map[string]string{
		"PARLEY_CONSOLE_LISTEN": addr, "PARLEY_TOOLS_SHELL_ENABLED": "true",
		"PARLEY_ACCESS_ADMINS": ana, "PARLEY_TOOLS_APPROVAL_APPROVERS": ana,
	}, nil)
	ctx := waitCtx(t)
	base := "http://" + addr
	if err := w.tg.WaitFor(ctx, func() bool {
		resp, err := http.Get(base + "/static/console.css")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}); err != nil {
		t.Fatalf("the console never listened on %s: %v", addr, err)
	}

	tab := bt.Tab(t)
	bt.Go(t, tab, consoleLink(t, w, ana))
	bt.ClickTo(t, tab, `button[type=submit]`, "Overview")
	bt.WaitText(t, tab, `[data-live=approvals]`, "0")

	w.model.Enqueue(llmtest.ToolCall("c1", "shell", `{"command":"echo console-approved"}`), llmtest.Text("Ran it."))
	w.tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "run the check", Mention: true})
	var prompt telegramtest.Message
	if err := w.tg.WaitFor(ctx, func() bool {
		for _, m := range w.tg.BotMessages(tgGroup) {
			if len(m.Buttons) == 1 {
				prompt = m
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no approval message: %v", err)
	}

	// The overview, left open, counts it without a reload (server-sent
	// events), and shows Telegram connected.
	bt.WaitText(t, tab, `[data-live=approvals]`, "1")
	if got := bt.Text(t, tab, ".figures"); !strings.Contains(got, "telegram\nconnected") {
		t.Fatalf("the overview's figures: %q", got)
	}

	// The conversation, with the shell call waiting in it.
	bt.Go(t, tab, base+"/conversations")
	bt.ClickTo(t, tab, `table a`, "Conversation")
	if got := bt.Text(t, tab, ".transcript"); !strings.Contains(got, "run the check") || !strings.Contains(got, `"command": "echo console-approved"`) {
		t.Fatalf("the transcript shows %q", got)
	}

	bt.Go(t, tab, base+"/approvals")
	if got := bt.Text(t, tab, ".card"); !strings.Contains(got, "shell") || !strings.Contains(got, "Ana") {
		t.Fatalf("the pending approval reads %q", got)
	}
	bt.Shoot(t, tab, "approvals")
	bt.ClickTo(t, tab, `button.approve`, "Approvals")
	if got := bt.Text(t, tab, ".said"); got != "Approved." {
		t.Fatalf("after approving: %q", got)
	}
	w.botSays(t, ctx, tgGroup, 0, "Ran it.")
	for _, m := range w.tg.BotMessages(tgGroup) {
		if m.ID == prompt.ID && (len(m.Buttons) != 0 || !strings.Contains(m.Visible, "Approved by Ana (console)")) {
			t.Fatalf("the approval message reads %q with buttons %+v", m.Visible, m.Buttons)
		}
	}
	reqs := w.model.Requests()
	if len(reqs) != 2 || strings.Count(string(reqs[1].Body), "console-approved\\n") != 1 {
		t.Fatalf("the model saw %d requests; the command's output should reach it once", len(reqs))
	}
	// Decided: nothing waits, and the decision is in the list.
	if got := bt.Text(t, tab, "main"); !strings.Contains(got, "Nothing waits.") || !strings.Contains(got, "approved by Ana") {
		t.Fatalf("the approvals page after deciding: %q", got)
	}
	bt.Shoot(t, tab, "approvals-decided")
	// The audit log has the decision, where it was made, and the call.
	bt.Go(t, tab, base+"/audit")
	rows := bt.Text(t, tab, "tbody")
	for _, want := range []string{ana + "\tapproval.approved\t", "\tconsole\tshell: run `echo console-approved`", ana + "\ttool.call\tshell\tchat\t{\"command\":\"echo console-approved\"}", "console.signin"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the audit log lacks %q:\n%s", want, rows)
		}
	}

	// The overview counts the answered turn, with its latency, and what
	// its model calls cost.
	bt.Go(t, tab, base+"/")
	if got := bt.Value[string](t, tab, `document.querySelector('section[aria-labelledby=answers] dd').textContent`); got != "1" {
		t.Errorf("answered today: %q, want 1", got)
	}
	if got := bt.Text(t, tab, "section[aria-labelledby=answers]"); strings.Contains(got, "p50, 24 h\n—") {
		t.Errorf("the answered turn has no latency: %q", got)
	}
	bt.Shoot(t, tab, "overview")

	// Bo, no admin: his own page, and 403 for the admin's.
	bt.ForgetCookies(t, tab)
	bt.Go(t, tab, consoleLink(t, w, bo))
	bt.ClickTo(t, tab, `button[type=submit]`, "What Parley keeps about you")
	for _, path := range []string{"/approvals", "/audit", "/sessions"} {
		bt.Go(t, tab, base+path)
		if got := bt.Text(t, tab, "main"); !strings.Contains(got, "This page is for admins.") {
			t.Errorf("bo at %s: %q", path, got)
		}
	}
}
