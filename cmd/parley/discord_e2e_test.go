package main

// End to end on Discord: the real adapter (discordgo, REST and gateway)
// against discordtest over HTTP and a websocket, through the whole runtime
// (router, delivery, pacer, approvals, SQLite), llmtest as the model.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

// The Discord world of these tests: a guild with one text channel and two
// people.
const (
	dcGuild   = "100"
	dcChannel = "200"
	dcAna     = "301"
	dcBo      = "302"
)

type dcWorld struct {
	*instance
	dc    *discordtest.Server
	model *llmtest.Server
}

// restart stops Parley and starts it again over the same database.
func (w *dcWorld) restart(t *testing.T, between func()) {
	t.Helper()
	w.stop()
	between()
	w.start(t)
}

func startDiscord(t *testing.T, extra map[string]string, opts []discordtest.Option, modelOpts ...llmtest.Option) *dcWorld {
	t.Helper()
	opts = append([]discordtest.Option{discordtest.WithHeartbeatInterval(500 * time.Millisecond)}, opts...)
	dc := discordtest.NewServer(opts...)
	t.Cleanup(dc.Close)
	dc.AddGuild(dcGuild, "parley-test")
	dc.AddChannel(dcGuild, dcChannel, "general")
	dc.AddUser(dcAna, "ana")
	dc.AddUser(dcBo, "bo")
	model := llmtest.NewServer(modelOpts...)
	t.Cleanup(model.Close)
	env := map[string]string{
		"PARLEY_DISCORD_ENABLED":            "true",
		"PARLEY_DISCORD_TOKEN":              dc.Token(),
		"PARLEY_DISCORD_API_URL":            dc.APIURL(),
		"PARLEY_DISCORD_GUILD_ID":           dcGuild,
		"PARLEY_ACCESS_DISCORD_ALLOW_USERS": dcAna + "," + dcBo,
	}
	for k, v := range extra {
		env[k] = v
	}
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), model, env)
	w := &dcWorld{dc: dc, model: model, instance: startInstance(t, cfg)}
	ctx := waitCtx(t)
	if err := dc.WaitFor(ctx, dc.Connected); err != nil {
		t.Fatalf("Parley never connected to the gateway: %v", err)
	}
	return w
}

// botSays waits until the bot shows a message reading text in channel.
func (w *dcWorld) botSays(t *testing.T, ctx context.Context, channel, text string) discordtest.Message {
	t.Helper()
	var found discordtest.Message
	if err := w.dc.WaitFor(ctx, func() bool {
		for _, m := range w.dc.BotMessages(channel) {
			if m.Content == text {
				found = m
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the bot never showed %q in %s: %v; it shows %+v", text, channel, err, w.dc.BotMessages(channel))
	}
	return found
}

// TestDiscordMentionOpensThread: a mention in a channel opens a thread on
// that message, named from it, with the typing indicator at once; the
// answer streams there by edits and ends complete; a follow-up in the
// thread continues the session without a mention.
func TestDiscordMentionOpensThread(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	chunks := []string{"Step one: ", "freeze. ", "Step two: ", "tag. ", "Step three: ", "ship."}
	w.model.Enqueue(llmtest.Text(chunks...).Paced(700 * time.Millisecond))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "plan the release", Mention: true})
	answer := w.botSays(t, ctx, m, strings.Join(chunks, ""))

	th, ok := w.dc.ThreadOf(m)
	if !ok || th.ParentID != dcChannel || !strings.Contains(strings.ToLower(th.Name), "plan the release") {
		t.Fatalf("thread %+v (found %v), want one on the mention named from it", th, ok)
	}
	if w.dc.Typing(m) == 0 {
		t.Fatal("no typing indicator in the thread")
	}
	if answer.Edits < 2 {
		t.Fatalf("the answer was edited %d times: not streamed", answer.Edits)
	}
	if n := len(w.dc.BotMessages(dcChannel)); n != 0 {
		t.Fatalf("%d bot messages in the channel itself, want the answer in the thread only", n)
	}

	w.model.Enqueue(llmtest.Text("Tuesday."))
	w.dc.Post(discordtest.Incoming{Channel: m, Author: dcAna, Content: "when?"})
	w.botSays(t, ctx, m, "Tuesday.")
	reqs := w.model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "plan the release") {
		t.Fatalf("the follow-up did not continue the session (%d model calls)", len(reqs))
	}
	if n := len(w.dc.BotMessages(m)); n != 2 {
		t.Fatalf("%d bot messages in the thread, want 2", n)
	}
}

func TestDiscordApprovalButtons(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, map[string]string{"PARLEY_TOOLS_SHELL_ENABLED": "true", "PARLEY_TOOLS_APPROVAL_APPROVERS": "discord:" + dcAna}, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.ToolCall("c1", "shell", `{"command":"echo dc-approved"}`), llmtest.Text("Ran it."))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "run the check", Mention: true})

	var prompt discordtest.Message
	if err := w.dc.WaitFor(ctx, func() bool {
		for _, msg := range w.dc.BotMessages(m) {
			if len(msg.Buttons) == 1 && len(msg.Buttons[0]) == 2 {
				prompt = msg
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no approval message: %v; %+v", err, w.dc.BotMessages(m))
	}
	approve, deny := prompt.Buttons[0][0], prompt.Buttons[0][1]
	if approve.Label != "Approve" || approve.Style != 3 || deny.Label != "Deny" || deny.Style != 4 {
		t.Fatalf("buttons %+v, want a green Approve and a red Deny", prompt.Buttons[0])
	}

	if _, err := w.dc.Click(m, prompt.ID, 0, dcBo); err != nil {
		t.Fatal(err)
	}
	if err := w.dc.WaitFor(ctx, func() bool { return len(w.dc.Ephemeral(dcBo)) > 0 }); err != nil {
		t.Fatalf("bo's click got no ephemeral refusal: %v", err)
	}
	if got := w.dc.Ephemeral(dcBo)[0]; !strings.Contains(got, "Only an approver can approve this; ana can deny it") {
		t.Fatalf("bo was told %q", got)
	}
	if n := len(w.model.Requests()); n != 1 {
		t.Fatalf("bo's click ran something: %d model calls", n)
	}

	if _, err := w.dc.Click(m, prompt.ID, 0, dcAna); err != nil {
		t.Fatal(err)
	}
	w.botSays(t, ctx, m, "Ran it.")
	for _, msg := range w.dc.BotMessages(m) {
		if msg.ID == prompt.ID && (len(msg.Buttons) != 0 || !strings.Contains(msg.Content, "Approved by ana")) {
			t.Fatalf("the decided approval reads %q with buttons %+v", msg.Content, msg.Buttons)
		}
	}
	reqs := w.model.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), "dc-approved") {
		t.Fatal("the tool's output never reached the model")
	}
}

func TestDiscordMemoryCommandIsPrivate(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	if err := w.dc.WaitFor(ctx, func() bool { return len(w.dc.Commands(dcGuild)) > 0 }); err != nil {
		t.Fatalf("no commands registered in the guild: %v", err)
	}
	names := map[string]bool{}
	for _, c := range w.dc.Commands(dcGuild) {
		names[c.Name] = true
	}
	for _, want := range []string{"memory", "kb", "skills", "reflect", "remind", "schedules", "tz", "new", "stop", "pause", "resume", "worklog", "status", "agent", "model", "usage", "console", "help"} {
		if !names[want] {
			t.Fatalf("command /%s is not registered: %+v", want, w.dc.Commands(dcGuild))
		}
	}

	w.model.Enqueue(
		llmtest.ToolCall("m1", "memory", `{"action":"add","target":"profile","content":"ana prefers dark mode"}`),
		llmtest.Text("SAFE"), // the memory judge
		llmtest.Text("Noted."))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "remember I like dark mode", Mention: true})
	w.botSays(t, ctx, m, "Noted.")

	show := discordtest.CommandOption{Name: "show", Type: 1}
	if _, err := w.dc.Command(dcChannel, dcAna, "memory", show); err != nil {
		t.Fatal(err)
	}
	if _, err := w.dc.Command(dcChannel, dcBo, "memory", show); err != nil {
		t.Fatal(err)
	}
	if err := w.dc.WaitFor(ctx, func() bool {
		return len(w.dc.Ephemeral(dcAna)) > 0 && len(w.dc.Ephemeral(dcBo)) > 0
	}); err != nil {
		t.Fatalf("/memory show was not answered to both: %v", err)
	}
	if got := strings.Join(w.dc.Ephemeral(dcAna), "\n"); !strings.Contains(got, "prefers dark mode") {
		t.Fatalf("ana's /memory show reads %q", got)
	}
	if got := strings.Join(w.dc.Ephemeral(dcBo), "\n"); strings.Contains(got, "dark mode") {
		t.Fatalf("bo saw ana's memory: %q", got)
	}
	for _, ch := range []string{dcChannel, m} {
		for _, msg := range w.dc.BotMessages(ch) {
			if strings.Contains(msg.Content, "prefers dark mode") {
				t.Fatalf("memory shown publicly in %s: %q", ch, msg.Content)
			}
		}
	}
}

func TestDiscordNeverPingsEveryone(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	text := "@everyone @here <@" + dcBo + "> <@&555> look at this"
	w.model.Enqueue(llmtest.Text(text))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "say it loud", Mention: true})
	if err := w.dc.WaitFor(ctx, func() bool {
		for _, msg := range w.dc.BotMessages(m) {
			if strings.Contains(msg.Content, "look at this") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no answer: %v", err)
	}
	for _, msg := range w.dc.BotMessages(m) {
		if len(msg.Pings) != 0 {
			t.Fatalf("the answer pinged %v: %q", msg.Pings, msg.Content)
		}
	}
}

func TestDiscordLongAnswerSplits(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	var b strings.Builder
	for i := 0; b.Len() < 5000; i++ {
		b.WriteString("Paragraph " + strings.Repeat("x", i%7) + " about the release plan and its risks.\n\n")
	}
	b.WriteString("The end.")
	w.model.Enqueue(llmtest.Text(b.String()))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "write a lot", Mention: true})
	if err := w.dc.WaitFor(ctx, func() bool {
		msgs := w.dc.BotMessages(m)
		return len(msgs) > 0 && strings.HasSuffix(msgs[len(msgs)-1].Content, "The end.")
	}); err != nil {
		t.Fatalf("the answer never ended: %v", err)
	}
	msgs := w.dc.BotMessages(m)
	if len(msgs) < 3 {
		t.Fatalf("%d messages for 5,000 characters", len(msgs))
	}
	total := 0
	for i, msg := range msgs {
		n := utf8.RuneCountInString(msg.Content)
		if n > 2000 {
			t.Fatalf("message %d is %d characters", i, n)
		}
		total += n
	}
	if total < 5000 {
		t.Fatalf("%d characters shown in all, want the whole answer", total)
	}
}

func TestDiscord429Storm(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, []discordtest.Option{discordtest.WithSeed(7)})
	ctx := waitCtx(t)
	w.dc.Storm(0.4, 300*time.Millisecond, "POST /channels/{id}/messages", "PATCH /channels/{id}/messages/{id}")
	chunks := []string{"Storm ", "or ", "no ", "storm, ", "this ", "answer ", "arrives ", "once."}
	w.model.Enqueue(llmtest.Text(chunks...).Paced(300 * time.Millisecond))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "go", Mention: true})
	w.botSays(t, ctx, m, strings.Join(chunks, ""))
	if n := len(w.dc.BotMessages(m)); n != 1 {
		t.Fatalf("%d bot messages, want 1: %+v", n, w.dc.BotMessages(m))
	}
	limited := 0
	for _, c := range w.dc.Calls() {
		if c.Status == 429 {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("the storm never hit: the test proves nothing")
	}
}

// TestDiscordGatewayDropWhileAnswering: the gateway drops while an answer
// is written; discordgo resumes and the answer completes, once.
func TestDiscordGatewayDropWhileAnswering(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	asked := make(chan struct{}, 1)
	w := startDiscord(t, nil, nil, llmtest.WithResponder(func(llmtest.Request) llmtest.Reply {
		asked <- struct{}{}
		<-release
		return llmtest.Text("Finished ", "after the drop.")
	}))
	ctx := waitCtx(t)
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "write something", Mention: true})
	<-asked
	w.dc.DropConnection()
	if err := w.dc.WaitFor(ctx, func() bool { return w.dc.Resumes() >= 1 && w.dc.Connected() }); err != nil {
		t.Fatalf("no resume: %v", err)
	}
	close(release)
	w.botSays(t, ctx, m, "Finished after the drop.")
	if n, r := len(w.dc.BotMessages(m)), len(w.model.Requests()); n != 1 || r != 1 {
		t.Fatalf("%d bot messages and %d model calls, want 1 and 1", n, r)
	}
}

func TestDiscordDuplicateMessageCreate(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.Text("Once."))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "hello", Mention: true})
	if err := w.dc.Redispatch(m); err != nil {
		t.Fatal(err)
	}
	w.botSays(t, ctx, m, "Once.")
	// A later message is answered after both copies were handled.
	w.model.Enqueue(llmtest.Text("Twice."))
	w.dc.Post(discordtest.Incoming{Channel: m, Author: dcAna, Content: "again"})
	w.botSays(t, ctx, m, "Twice.")
	if n, r := len(w.dc.BotMessages(m)), len(w.model.Requests()); n != 2 || r != 2 {
		t.Fatalf("%d bot messages and %d model calls, want 2 and 2", n, r)
	}
}

// TestDiscordInlineWhereThreadsAreNotAllowed: in a channel where the bot
// may not open threads, it answers inline, replying to the mention, and a
// reply to that answer continues the conversation.
func TestDiscordInlineWhereThreadsAreNotAllowed(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	w.dc.ForbidThreads(dcChannel)
	w.model.Enqueue(llmtest.Text("Inline it is."))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "no threads here", Mention: true})
	answer := w.botSays(t, ctx, dcChannel, "Inline it is.")
	if answer.Reference != m {
		t.Fatalf("the inline answer references %q, want the mention %q", answer.Reference, m)
	}
	if _, ok := w.dc.ThreadOf(m); ok {
		t.Fatal("a thread exists although threads are forbidden")
	}
	w.model.Enqueue(llmtest.Text("Still inline."))
	w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "and then?", ReplyTo: answer.ID})
	w.botSays(t, ctx, dcChannel, "Still inline.")
	if reqs := w.model.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "no threads here") {
		t.Fatalf("the reply did not continue the conversation (%d model calls)", len(reqs))
	}
}

// TestDiscordMessageWhileStoppedIsAnswered: a message written in a thread
// while Parley is stopped (the gateway never replays it) is answered once
// after the restart, and nothing answered before is answered again.
func TestDiscordMessageWhileStoppedIsAnswered(t *testing.T) {
	t.Parallel()
	w := startDiscord(t, nil, nil)
	ctx := waitCtx(t)
	w.model.Enqueue(llmtest.Text("Before."))
	m := w.dc.Post(discordtest.Incoming{Channel: dcChannel, Author: dcAna, Content: "start a task", Mention: true})
	w.botSays(t, ctx, m, "Before.")
	// An answer shows before its turn is recorded done; a stop in between
	// runs that turn again at the next start.
	turnsDone(t, ctx, w.cfg)

	w.model.Enqueue(llmtest.Text("After."))
	w.restart(t, func() {
		w.dc.Post(discordtest.Incoming{Channel: m, Author: dcAna, Content: "written while you were away"})
	})
	w.botSays(t, ctx, m, "After.")
	if n, r := len(w.dc.BotMessages(m)), len(w.model.Requests()); n != 2 || r != 2 {
		t.Fatalf("%d bot messages and %d model calls, want 2 and 2: %+v; in the channel: %+v", n, r, w.dc.BotMessages(m), w.dc.BotMessages(dcChannel))
	}
}

// TestDiscordShards: with discord.shards at 2, Parley identifies both
// shards of a bot Discord requires to shard, and answers mentions in a
// guild of each shard.
func TestDiscordShards(t *testing.T) {
	t.Parallel()
	const (
		shard1Guild   = "4194404" // (id >> 22) % 2 == 1; dcGuild is on shard 0
		shard1Channel = "4194405"
	)
	w := startDiscord(t, map[string]string{"PARLEY_DISCORD_SHARDS": "2"}, []discordtest.Option{
		discordtest.WithRequiredShards(2),
		// Discord's interval: short beats race discordgo's reconnects.
		discordtest.WithHeartbeatInterval(41250 * time.Millisecond),
	})
	w.dc.AddGuild(shard1Guild, "shard-one")
	w.dc.AddChannel(shard1Guild, shard1Channel, "general")
	ctx := waitCtx(t)
	for shard, where := range []struct{ guild, channel string }{{dcGuild, dcChannel}, {shard1Guild, shard1Channel}} {
		if got := discordtest.ShardOf(where.guild, 2); got != shard {
			t.Fatalf("guild %s is on shard %d, want %d", where.guild, got, shard)
		}
		answer := fmt.Sprintf("Answer on shard %d.", shard)
		w.model.Enqueue(llmtest.Text(answer))
		m := w.dc.Post(discordtest.Incoming{Channel: where.channel, Author: dcAna, Content: "hello", Mention: true})
		w.botSays(t, ctx, m, answer)
	}
	if a, b := w.dc.ShardIdentifies(0), w.dc.ShardIdentifies(1); a != 1 || b != 1 {
		t.Fatalf("IDENTIFYs per shard %d, %d; want one each", a, b)
	}
}
