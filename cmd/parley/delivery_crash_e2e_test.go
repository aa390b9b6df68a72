package main

// The real binary killed with SIGKILL between an answer's create and the
// record of its result: the platform made the message, Parley never learnt
// its id. A short answer's first call is its final message (no
// placeholder), so the restart must find it or make the create again
// without a second copy (docs/architecture.md, "One reply, one message"):
// Slack finds it by the reply key in its metadata, Discord returns it for
// the same nonce (enforce_nonce). Telegram has neither: the restart posts
// it again, and the answer shows twice — the residual risk of a create
// without a placeholder, within the window of one sendMessage round trip.

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/internal/syncbuf"
	"github.com/parleybot/parley/store"
)

// crashSide is one platform's fake, seen from a person in a DM.
type crashSide struct {
	env     []string
	ready   func() bool // Parley is connected and receiving
	post    func(text string)
	texts   func() []string // what the bot's messages in the DM read
	hold    func()          // hold the answer of the next create
	held    func() int
	release func()
	waitFor func(ctx context.Context, cond func() bool) error
	// want is how many copies of the answer the person sees in the end.
	want int
}

func telegramCrashSide(t *testing.T) crashSide {
	tg := telegramtest.NewServer()
	t.Cleanup(tg.Close)
	tg.AddUser(tgAna, "Ana", "ana")
	return crashSide{
		env: []string{"PARLEY_TELEGRAM_ENABLED=true", "PARLEY_TELEGRAM_TOKEN=" + tg.Token(), "PARLEY_TELEGRAM_API_URL=" + tg.URL,
			"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS=" + strconv.FormatInt(tgAna, 10)},
		ready: tg.Polling,
		post:  func(text string) { tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: text}) },
		texts: func() (out []string) {
			for _, m := range tg.BotMessages(tgAna) {
				out = append(out, m.Visible)
			}
			return out
		},
		hold: func() { tg.HoldAnswerNext("sendMessage") }, held: tg.HeldAnswers, release: tg.ReleaseAnswers,
		waitFor: tg.WaitFor,
		want:    2, // nothing to find the first copy by
	}
}

func slackCrashSide(t *testing.T) crashSide {
	slk := newWorkspace(t)
	slk.AddChannel("D1", "ana", slacktest.IM)
	var env []string
	for k, v := range slackEnv(slk) {
		env = append(env, k+"="+v)
	}
	return crashSide{
		env:   env,
		ready: slk.Connected,
		post:  func(text string) { slk.PostUserMessage("D1", "U1", text, "") },
		texts: func() (out []string) {
			for _, m := range slk.Messages("D1") {
				if m.BotID == slk.BotID() {
					out = append(out, m.Visible())
				}
			}
			return out
		},
		hold: func() { slk.HoldAnswerNext("chat.postMessage") }, held: slk.HeldAnswers, release: slk.ReleaseAnswers,
		waitFor: slk.WaitFor,
		want:    1, // found by its metadata
	}
}

func discordCrashSide(t *testing.T) crashSide {
	dc := discordtest.NewServer(discordtest.WithHeartbeatInterval(500 * time.Millisecond))
	t.Cleanup(dc.Close)
	dc.AddGuild(dcGuild, "parley-test")
	dc.AddChannel(dcGuild, dcChannel, "general")
	dc.AddUser(dcAna, "ana")
	dm := dc.DMChannel(dcAna)
	return crashSide{
		env: []string{"PARLEY_DISCORD_ENABLED=true", "PARLEY_DISCORD_TOKEN=" + dc.Token(), "PARLEY_DISCORD_API_URL=" + dc.APIURL(),
			"PARLEY_DISCORD_GUILD_ID=" + dcGuild, "PARLEY_ACCESS_DISCORD_ALLOW_USERS=" + dcAna},
		ready: dc.Connected,
		post:  func(text string) { dc.Post(discordtest.Incoming{Channel: dm, Author: dcAna, Content: text}) },
		texts: func() (out []string) {
			for _, m := range dc.BotMessages(dm) {
				out = append(out, m.Content)
			}
			return out
		},
		hold: func() { dc.HoldAnswerNext("POST /channels/{id}/messages") }, held: dc.HeldAnswers, release: dc.ReleaseAnswers,
		waitFor: dc.WaitFor,
		want:    1, // the same nonce returns the same message
	}
}

func TestKilledBetweenCreateAndRecord(t *testing.T) {
	for _, tt := range []struct {
		name string
		side func(*testing.T) crashSide
	}{
		{"telegram", telegramCrashSide},
		{"slack", slackCrashSide},
		{"discord", discordCrashSide},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := waitCtx(t)
			side := tt.side(t)
			model := llmtest.NewServer()
			t.Cleanup(model.Close)
			sb := newSandbox(t, side.env...).withLLM(model)
			logs := &syncbuf.Buffer{}
			start := func() *exec.Cmd {
				cmd := sb.command(ctx, "run")
				cmd.Stdout, cmd.Stderr = logs, logs
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				return cmd
			}
			const answer = "The short answer."
			model.Enqueue(llmtest.Text(answer))
			side.hold()
			first := start()
			if err := side.waitFor(ctx, side.ready); err != nil {
				t.Fatalf("never connected: %v\n%s", err, logs.String())
			}
			side.post("a short question")
			// The create took effect and its answer is held: Parley has not
			// learnt the message's id.
			if err := side.waitFor(ctx, func() bool { return side.held() == 1 && copies(side.texts(), answer) == 1 }); err != nil {
				t.Fatalf("the answer was never created: %v\n%s", err, logs.String())
			}
			if err := first.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			first.Wait()
			side.release()

			second := start()
			t.Cleanup(func() { second.Process.Kill(); second.Wait() })
			turnsDoneIn(t, ctx, filepath.Join(sb.dir, "data", "parley.db"))
			if got := copies(side.texts(), answer); got != side.want {
				t.Fatalf("the answer shows %d times after the restart, want %d\n%s", got, side.want, logs.String())
			}
			if n := len(model.Requests()); n != 1 {
				t.Errorf("%d model requests, want 1: the restart only delivers the answer", n)
			}
		})
	}
}

// turnsDoneIn waits until the database at path has no unfinished inbox
// item: the restarted process has delivered what the crash interrupted.
func turnsDoneIn(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		items, err := db.Unfinished(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("turns still unfinished: %+v", items)
		}
	}
}

// copies counts the texts reading text.
func copies(texts []string, text string) int {
	n := 0
	for _, s := range texts {
		if s == text {
			n++
		}
	}
	return n
}
