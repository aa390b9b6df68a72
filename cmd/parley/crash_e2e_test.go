package main

// The real binary on fake Telegram, killed with SIGKILL while a shell
// approval is pending: the restart leaves the turn waiting on the same
// approval, and the decision taken after it continues the task once.

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/internal/syncbuf"
	"github.com/parleybot/parley/store"
)

func TestApprovalPendingAtKill9(t *testing.T) {
	for _, tt := range []struct {
		name    string
		button  int // 0 Approve, 1 Deny
		final   string
		decided string
		ran     bool
	}{
		{"approved after the restart", 0, "Ran it after the restart.", "Approved by Ana", true},
		{"denied after the restart", 1, "Understood, not running it.", "Denied by Ana", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := waitCtx(t)
			bin := binaryOnTelegram(t, ctx, fmt.Sprintf("PARLEY_ACCESS_ADMINS=telegram:%d", tgAna), "PARLEY_TOOLS_SHELL_ENABLED=true")
			tg, model, sb, start, logs := bin.tg, bin.model, bin.sb, bin.start, bin.logs

			model.Enqueue(llmtest.ToolCall("c1", "shell", `{"command":"echo crash-approved"}`))
			first := start()
			tg.Post(telegramtest.Incoming{Chat: tgGroup, From: tgAna, Text: "run the check", Mention: true})
			var prompt telegramtest.Message
			if err := tg.WaitFor(ctx, func() bool {
				for _, m := range tg.BotMessages(tgGroup) {
					if len(m.Buttons) == 1 && len(m.Buttons[0]) == 2 {
						prompt = m
						return true
					}
				}
				return false
			}); err != nil {
				t.Fatalf("no approval prompt: %v\n%s", err, logs.String())
			}
			// Kill once the approval knows its message, as it does a moment
			// after the post: a kill in between leaves a record without a
			// message, and the restart rightly shows the prompt again.
			waitForApprovalMessage(t, ctx, filepath.Join(sb.dir, "data", "parley.db"), prompt.ID)
			if err := first.Process.Kill(); err != nil { // SIGKILL: no shutdown at all
				t.Fatal(err)
			}
			first.Wait()

			starts := len(tg.CallsTo("getMe"))
			model.Enqueue(llmtest.Text(tt.final))
			second := start()
			t.Cleanup(func() { second.Process.Kill(); second.Wait() })
			// Recovery runs before the adapter starts: once the new process
			// has said who it is and polls, it has decided what to do with
			// the interrupted turn.
			if err := tg.WaitFor(ctx, func() bool { return len(tg.CallsTo("getMe")) > starts && tg.Polling() }); err != nil {
				t.Fatalf("the restarted process never polled: %v\n%s", err, logs.String())
			}
			if n := len(model.Requests()); n != 1 {
				t.Fatalf("the restart asked the model again (%d requests) while the approval was pending\n%s", n, logs.String())
			}

			if _, err := tg.Click(tgGroup, prompt.ID, tt.button, tgAna); err != nil {
				t.Fatal(err)
			}
			w := &tgWorld{tg: tg}
			w.botSays(t, ctx, tgGroup, 0, tt.final)
			reqs := model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2 (one before the kill, one after the decision)", len(reqs))
			}
			last := string(reqs[1].Body)
			if ran := strings.Contains(last, "crash-approved\\n"); ran != tt.ran {
				t.Fatalf("the command's output reached the model: %v, want %v: %s", ran, tt.ran, last)
			}
			if !tt.ran && !strings.Contains(last, "denied by Ana") {
				t.Fatalf("the model was not told of the denial: %s", last)
			}
			answers := 0
			for _, m := range tg.BotMessages(tgGroup) {
				if m.Visible == tt.final {
					answers++
				}
				if m.ID == prompt.ID && (len(m.Buttons) != 0 || !strings.Contains(m.Visible, tt.decided)) {
					t.Fatalf("the approval reads %q with buttons %+v", m.Visible, m.Buttons)
				}
			}
			if answers != 1 {
				t.Fatalf("%d answers, want 1: %+v", answers, tg.BotMessages(tgGroup))
			}
		})
	}
}

// waitForApprovalMessage waits until the running process has recorded that
// its pending approval is shown in message id. It reads the process's
// database from outside, as a second process may (WAL), polling because
// another process's write gives no signal here.
func waitForApprovalMessage(t *testing.T, ctx context.Context, path string, id int) {
	t.Helper()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		recs, err := db.ExpiredApprovals(ctx, time.Now().Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 1 && len(recs[0].Refs) == 1 && recs[0].Refs[0].ID == strconv.Itoa(id) {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("the approval never recorded message %d: %+v", id, recs)
		}
	}
}

// binaryRig is the real binary on a fresh fake Telegram (Ana, in a group)
// and a scripted model, started as many times as a test kills it.
type binaryRig struct {
	tg    *telegramtest.Server
	model *llmtest.Server
	sb    *sandbox
	logs  *syncbuf.Buffer
	// start starts `parley run`; the caller kills it.
	start func() *exec.Cmd
}

func binaryOnTelegram(t *testing.T, ctx context.Context, env ...string) binaryRig {
	t.Helper()
	tg := telegramtest.NewServer()
	t.Cleanup(tg.Close)
	tg.AddUser(tgAna, "Ana", "ana")
	tg.AddGroup(tgGroup, "team")
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	sb := newSandbox(t, append([]string{
		"PARLEY_TELEGRAM_ENABLED=true",
		"PARLEY_TELEGRAM_TOKEN=" + tg.Token(),
		"PARLEY_TELEGRAM_API_URL=" + tg.URL,
		fmt.Sprintf("PARLEY_ACCESS_TELEGRAM_ALLOW_USERS=%d", tgAna),
	}, env...)...).withLLM(model)
	logs := &syncbuf.Buffer{}
	return binaryRig{tg: tg, model: model, sb: sb, logs: logs, start: func() *exec.Cmd {
		cmd := sb.command(ctx, "run")
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}}
}
