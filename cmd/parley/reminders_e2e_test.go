package main

// Reminders and schedules end to end on the platforms' fakes (the real
// adapters against slacktest, telegramtest and discordtest, the whole
// runtime over SQLite, llmtest as the model): a reminder set in a
// conversation survives Parley being stopped before it is due and is
// posted once after the restart, in the same thread, pinging the person
// who asked and no one else; a schedule's run is its owner's turn, posted
// where they asked; /remind lists and cancels.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/remind"
)

// TestReminderAcrossRestartOnEachPlatform: a person asks to be reminded in
// 5 s; Parley is stopped right after confirming, and restarted once the
// reminder is due. The restarted Parley posts it once, without asking the
// model, in the thread it was set in, pinging exactly the asker; a reply
// there continues that conversation.
func TestReminderAcrossRestartOnEachPlatform(t *testing.T) {
	t.Parallel()
	for _, p := range []struct {
		name  string
		start func(*testing.T) *remindSide
	}{
		{"slack channel thread", slackRemindSide},
		{"telegram group", func(t *testing.T) *remindSide { return telegramRemindSide(t, false) }},
		{"telegram forum topic", func(t *testing.T) *remindSide { return telegramRemindSide(t, true) }},
		{"discord guild thread", discordRemindSide},
	} {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			s := p.start(t)
			ctx := waitCtx(t)
			const ask = "remind me in 5 seconds about the standup in room 4"
			s.model.Enqueue(llmtest.ToolCall("r1", "remind", `{"text":"standup in room 4","in":"5s"}`),
				llmtest.Text("I'll remind you."))
			s.ask(t, ctx, ask, "I'll remind you.")
			turnsDone(t, ctx, s.cfg)
			if tool := s.model.Requests()[1].LastText("tool"); !strings.Contains(tool, "Reminder set: I'll remind you") {
				t.Fatalf("the remind tool answered %q", tool)
			}
			s.stop() // right after the confirmation, as a deploy would

			due, waiting := nextDue(t, s.cfg)
			if !waiting {
				t.Fatal("the reminder was claimed before the stop: this machine took over 5 s from the tool call to the stop, and the test proves nothing")
			}
			waitUntil(t, ctx, due)
			if in, out := s.shown(); len(in)+len(out) != 0 {
				t.Fatalf("a reminder was shown before the restart: %+v %+v", in, out)
			}
			calls := len(s.model.Requests())
			restarted := time.Now()
			s.start(t)
			var got shownMsg
			if err := s.wait(ctx, func() bool {
				in, _ := s.shown()
				if len(in) > 0 {
					got = in[0]
				}
				return len(in) > 0
			}); err != nil {
				in, out := s.shown()
				t.Fatalf("the reminder was never posted in the thread: %v; in the thread %+v, elsewhere %+v", err, in, out)
			}
			seen := time.Now()
			s.stop() // whatever the restarted Parley was doing has ended

			in, out := s.shown()
			if len(in) != 1 || len(out) != 0 {
				t.Fatalf("%d reminders in the thread and %d elsewhere, want 1 and 0: %+v %+v", len(in), len(out), in, out)
			}
			if want := s.lead + " ⏰ standup in room 4"; !strings.HasPrefix(got.text, want) {
				t.Fatalf("the reminder reads %q, want it to start %q", got.text, want)
			}
			if !slices.Equal(got.pinged, []string{s.asker}) {
				t.Fatalf("the reminder pinged %v, want exactly the asker %s", got.pinged, s.asker)
			}
			if s.check != nil {
				s.check(t, got)
			}
			// Delivered between the restart and the moment it was seen:
			// late by more than a minute only if that was so.
			late := strings.Contains(got.text, "late by")
			if seen.Sub(due) <= remind.LateAfter && late || restarted.Sub(due) > remind.LateAfter && !late {
				t.Fatalf("the reminder reads %q, delivered %v to %v after it was due", got.text, restarted.Sub(due), seen.Sub(due))
			}
			if n := len(s.model.Requests()); n != calls {
				t.Fatalf("the model was called %d times for the delivery", n-calls)
			}

			// The reminder is part of the conversation: a reply there
			// continues the session in which it was set.
			s.start(t)
			s.model.Enqueue(llmtest.Text("Have a good standup."))
			s.reply(t, ctx, got, "thanks, going now", "Have a good standup.")
			reqs := s.model.Requests()
			if len(reqs) != calls+1 || !strings.Contains(string(reqs[calls].Body), ask) {
				t.Fatalf("the reply after the reminder did not continue its conversation (%d model calls)", len(reqs)-calls)
			}
			s.stop()
			if in, out := s.shown(); len(in) != 1 || len(out) != 0 {
				t.Fatalf("after another restart: %d reminders in the thread and %d elsewhere, want 1 and 0", len(in), len(out))
			}
		})
	}
}

// TestReminderAtStartKeepsWhatWasWrittenMeanwhile: on Discord the gateway
// replays nothing to a new process; what Ana wrote in the thread while
// Parley was stopped is recovered from the thread's cursor. The reminder
// that fell due meanwhile, posted there as Parley starts (before the
// gateway is ready), must not move that cursor past her message: she gets
// both the reminder and an answer. The gateway is held until the
// reminder is out, as when Discord is slow to be ready.
func TestReminderAtStartKeepsWhatWasWrittenMeanwhile(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.ToolCall("r1", "remind", `{"text":"standup","in":"4s"}`), llmtest.Text("I'll remind you."))
	th := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "remind me of the standup", Mention: true})
	w.botSays(t, ctx, th, "I'll remind you.")
	turnsDone(t, ctx, w.cfg)
	w.stop()
	due, waiting := nextDue(t, w.cfg)
	if !waiting {
		t.Fatal("the reminder was claimed before the stop: this machine took over 4 s to stop, and the test proves nothing")
	}
	waitUntil(t, ctx, due)
	w.dc.Post(discordtest.Incoming{Channel: th, Author: dcAna, Content: "running late, start without me"})

	w.model.Enqueue(llmtest.Text("I'll tell them."))
	w.dc.HoldGateway()
	w.start(t)
	w.botSays(t, ctx, th, "<@"+dcAna+"> ⏰ standup")
	delivered(t, ctx, w.cfg) // the post has returned, the adapter's bookkeeping with it
	w.dc.ReleaseGateway()
	w.botSays(t, ctx, th, "I'll tell them.")
	w.stop()
	var shown []string
	for _, m := range w.dc.BotMessages(th) {
		shown = append(shown, m.Content)
	}
	if len(shown) != 3 {
		t.Fatalf("the thread shows %q, want the confirmation, the reminder and one answer", shown)
	}
	reqs := w.model.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[2].LastUserText(), "running late") {
		t.Fatalf("%d model calls, want 3, the last about the message written while stopped", len(reqs))
	}
}

// TestScheduleRunsAsTheOwnersTurnInTheChannel: Ana asks, in a thread of
// #general, for a summary of the channel; the schedule's run is a turn of
// hers (her name, her memory), instructed as she asked, and its answer is
// a new top-level message in the channel, not in her thread.
func TestScheduleRunsAsTheOwnersTurnInTheChannel(t *testing.T) {
	t.Parallel()
	runs := make(chan llmtest.Request, 4)
	slk, model := startSlack(t, nil, llmtest.WithResponder(func(r llmtest.Request) llmtest.Reply {
		if !strings.Contains(r.LastUserText(), "Scheduled run") {
			return llmtest.Status(500).WithMessage("unscripted model call")
		}
		runs <- r
		return llmtest.Text("Summary: ", "all quiet.")
	}))
	ctx := waitCtx(t)
	model.Enqueue(
		llmtest.ToolCall("m1", "memory", `{"action":"add","target":"profile","content":"ana wants summaries as bullet points"}`),
		llmtest.Text("SAFE"), // the memory judge
		llmtest.ToolCall("s1", "schedule", `{"instruction":"summarise the channel","in":"3s","where":"channel"}`),
		llmtest.Text("Scheduled."))
	root := slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> summarise the channel in 3 seconds, as a new message", "")

	var run llmtest.Request
	select {
	case run = <-runs:
	case <-ctx.Done():
		t.Fatalf("the scheduled run never asked the model; thread %+v", slk.Thread("C1", root))
	}
	if user := run.LastUserText(); !strings.Contains(user, "summarise the channel") || !strings.Contains(user, "set by ana") {
		t.Fatalf("the scheduled run's instruction reads %q", user)
	}
	if system := run.LastText("system"); !strings.Contains(system, "Talking with: ana") || !strings.Contains(system, "bullet points") {
		t.Fatalf("the scheduled run is not ana's turn (her name and memory):\n%s", system)
	}
	if body := string(run.Body); strings.Contains(body, "in 3 seconds, as a new message") {
		t.Fatal("the scheduled run carried the thread's conversation: want a new one in the channel")
	}

	var summary slacktest.Message
	if err := slk.WaitFor(ctx, func() bool {
		for _, m := range slk.Messages("C1") {
			if m.BotID != "" && m.Visible() == "Summary: all quiet." && !m.Streaming {
				summary = m
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the summary never appeared: %v; channel %+v", err, slk.Messages("C1"))
	}
	if summary.ThreadTS != "" && summary.ThreadTS != summary.TS {
		t.Fatalf("the summary is a reply in thread %s, want a new message in the channel", summary.ThreadTS)
	}
	if len(summary.MentionedUsers()) != 0 {
		t.Fatalf("the summary pinged %v", summary.MentionedUsers())
	}
	var inThread []string
	for _, m := range slk.Thread("C1", root) {
		if m.BotID != "" {
			inThread = append(inThread, m.Visible())
		}
	}
	if !slices.Equal(inThread, []string{"Scheduled."}) {
		t.Fatalf("ana's thread shows %q, want only the confirmation", inThread)
	}
	if model.Pending() != 0 {
		t.Fatalf("%d scripted replies left", model.Pending())
	}
}

// TestReminderCommandCancels: Ana sets two reminders; /parley remind lists
// them (and nothing of hers to Bo), /parley remind cancel 1 cancels the
// first, and when the second is posted, after the first's time, the first
// never was.
func TestReminderCommandCancels(t *testing.T) {
	t.Parallel()
	slk, model := startSlack(t, nil)
	ctx := waitCtx(t)
	model.Enqueue(
		llmtest.ToolCall("r1", "remind", `{"text":"call the bank","in":"6s"}`).
			WithToolCall("r2", "remind", `{"text":"water the plants","in":"7s"}`),
		llmtest.Text("Both set."))
	root := slk.PostUserMessage("C1", "U1", "<@"+slk.BotUserID()+"> remind me to call the bank and water the plants", "")
	botShows := func(what string, cond func(slacktest.Message) bool) {
		t.Helper()
		if err := slk.WaitFor(ctx, func() bool { return slices.ContainsFunc(slk.Thread("C1", root), cond) }); err != nil {
			t.Fatalf("the bot never showed %s: %v; thread %+v", what, err, slk.Thread("C1", root))
		}
	}
	botShows("the confirmation", func(m slacktest.Message) bool { return m.BotID != "" && m.Visible() == "Both set." })

	// command runs /parley remind args as user and returns the answer only
	// they see.
	command := func(user, args string) string {
		t.Helper()
		before := len(slk.Ephemerals(user))
		slk.SlashCommand("/parley", args, user, "C1")
		if err := slk.WaitFor(ctx, func() bool { return len(slk.Ephemerals(user)) > before }); err != nil {
			t.Fatalf("/parley %s was not answered to %s: %v", args, user, err)
		}
		return slk.Ephemerals(user)[before].Text
	}
	list := command("U1", "remind")
	first, second := strings.Index(list, "1. "), strings.Index(list, "2. ")
	if !strings.Contains(list, "Your reminders here (2)") || first < 0 || second < 0 ||
		!strings.Contains(list[first:second], "call the bank") || !strings.Contains(list[second:], "water the plants") {
		t.Fatalf("/parley remind lists:\n%s", list)
	}
	if got := command("U2", "remind"); got != "Your reminders here: none." {
		t.Fatalf("bo's /parley remind lists:\n%s", got)
	}
	if got := command("U1", "remind cancel 1"); got != `Cancelled: "call the bank".` {
		t.Fatalf("/parley remind cancel 1 answered %q", got)
	}
	if list := command("U1", "remind"); !strings.Contains(list, "Your reminders here (1)") || strings.Contains(list, "call the bank") {
		t.Fatalf("after the cancel /parley remind lists:\n%s", list)
	}

	botShows("the second reminder", func(m slacktest.Message) bool {
		return m.BotID != "" && strings.Contains(m.Visible(), "⏰ water the plants")
	})
	for _, m := range slk.Messages("C1") {
		if m.BotID != "" && strings.Contains(m.Visible(), "call the bank") {
			t.Fatalf("the cancelled reminder was posted: %q", m.Visible())
		}
	}
	for _, e := range slk.Ephemerals("U1") {
		if strings.Contains(e.Text, "⏰") {
			t.Fatalf("a reminder was shown ephemerally: %q", e.Text)
		}
	}
	if n := len(model.Requests()); n != 2 {
		t.Fatalf("%d model calls, want 2 (the commands and reminders ask none)", n)
	}
}
