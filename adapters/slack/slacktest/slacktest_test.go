package slacktest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

const (
	channel = "C0000GEN"
	dm      = "D0000ALICE"
	alice   = "U0000ALICE"
	bob     = "U0000BOB"
)

// testCtx bounds a test; it is a failure deadline, not a synchronisation sleep.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newServer(t *testing.T, opts ...slacktest.Option) (*slacktest.Server, *slack.Client) {
	t.Helper()
	srv := slacktest.NewServer(opts...)
	t.Cleanup(srv.Close)
	srv.AddUser(alice, "alice")
	srv.AddUser(bob, "bob")
	srv.AddChannel(channel, "general", slacktest.Public)
	srv.AddChannel(dm, "alice", slacktest.IM)
	api := slack.New(srv.BotToken(), slack.OptionAPIURL(srv.URL+"/"), slack.OptionAppLevelToken(srv.AppToken()))
	return srv, api
}

// runSocket starts the real socketmode client and waits for its first hello.
func runSocket(t *testing.T, ctx context.Context, api *slack.Client) *socketmode.Client {
	t.Helper()
	sm := socketmode.New(api, socketmode.OptionPingInterval(time.Second))
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = sm.RunContext(runCtx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	next(t, ctx, sm, socketmode.EventTypeHello)
	return sm
}

// next returns the next event of type typ, skipping connection chatter.
func next(t *testing.T, ctx context.Context, sm *socketmode.Client, typ socketmode.EventType) socketmode.Event {
	t.Helper()
	for {
		select {
		case evt := <-sm.Events:
			if evt.Type == typ {
				return evt
			}
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", typ, ctx.Err())
		}
	}
}

func TestEventsArriveAndAcksReachFake(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	sm := runSocket(t, ctx, api)

	ts := srv.PostUserMessage(channel, alice, "<@"+srv.BotUserID()+"> summarize", "")

	var kinds []string
	var ids []string
	for range 2 {
		evt := next(t, ctx, sm, socketmode.EventTypeEventsAPI)
		if err := sm.Ack(*evt.Request); err != nil {
			t.Fatal(err)
		}
		ev := evt.Data.(slackevents.EventsAPIEvent)
		ids = append(ids, ev.Data.(*slackevents.EventsAPICallbackEvent).EventID)
		switch inner := ev.InnerEvent.Data.(type) {
		case *slackevents.MessageEvent:
			kinds = append(kinds, "message")
			if inner.TimeStamp != ts || inner.ChannelType != "channel" || inner.User != alice {
				t.Errorf("message event = %+v", inner)
			}
		case *slackevents.AppMentionEvent:
			kinds = append(kinds, "app_mention")
			if inner.TimeStamp != ts || inner.Channel != channel {
				t.Errorf("app_mention event = %+v", inner)
			}
		default:
			t.Fatalf("unexpected inner event %T", inner)
		}
	}
	if strings.Join(kinds, ",") != "message,app_mention" || ids[0] == ids[1] {
		t.Errorf("events = %v ids = %v, want message then app_mention with distinct event ids", kinds, ids)
	}
	if err := srv.WaitFor(ctx, func() bool { return len(srv.Acks()) == 2 }); err != nil {
		t.Fatalf("acks never reached the fake: %v", err)
	}
}

func TestUnackedEnvelopeIsRedelivered(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t, slacktest.WithAckTimeout(50*time.Millisecond))
	sm := runSocket(t, ctx, api)

	srv.PostUserMessage(dm, alice, "hello", "")
	first := next(t, ctx, sm, socketmode.EventTypeEventsAPI) // not acked
	again := next(t, ctx, sm, socketmode.EventTypeEventsAPI)
	if again.Request.EnvelopeID != first.Request.EnvelopeID || again.Request.RetryAttempt != 1 ||
		again.Request.RetryReason != "timeout" {
		t.Fatalf("redelivery = %+v, want same envelope with retry_attempt 1", again.Request)
	}
	if err := sm.Ack(*again.Request); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitFor(ctx, func() bool { return len(srv.Acks()) == 1 }); err != nil {
		t.Fatal(err)
	}
	if d := srv.Delivered(); len(d) < 2 || d[1].RetryAttempt != 1 {
		t.Errorf("Delivered = %+v", d)
	}
}

func TestChatRoundTrips(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	root := srv.PostUserMessage(channel, alice, "question", "")

	ch, ts, err := api.PostMessageContext(ctx, channel, slack.MsgOptionText("draft", false), slack.MsgOptionTS(root))
	if err != nil || ch != channel {
		t.Fatalf("PostMessage = %q %q %v", ch, ts, err)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText("final", false)); err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	if _, err := api.PostEphemeralContext(ctx, channel, bob, slack.MsgOptionText("only bob", false)); err != nil {
		t.Fatalf("PostEphemeral: %v", err)
	}

	_, sts, err := api.StartStreamContext(ctx, channel, slack.MsgOptionTS(root),
		slack.MsgOptionRecipientUserID(alice), slack.MsgOptionRecipientTeamID(srv.TeamID()),
		slack.MsgOptionMarkdownText("Hel"))
	if err != nil {
		t.Fatalf("StartStream: %v", err)
	}
	if _, _, err := api.AppendStreamContext(ctx, channel, sts, slack.MsgOptionMarkdownText("lo")); err != nil {
		t.Fatalf("AppendStream: %v", err)
	}
	// A still-streaming message cannot be edited.
	_, _, _, err = api.UpdateMessageContext(ctx, channel, sts, slack.MsgOptionText("x", false))
	assertSlackErr(t, err, "streaming_state_conflict")
	if _, _, err := api.StopStreamContext(ctx, channel, sts, slack.MsgOptionMarkdownText("!")); err != nil {
		t.Fatalf("StopStream: %v", err)
	}
	_, _, err = api.AppendStreamContext(ctx, channel, sts, slack.MsgOptionMarkdownText("late"))
	assertSlackErr(t, err, "message_not_in_streaming_state")

	thread := srv.Thread(channel, root)
	var got []string
	for _, m := range thread {
		got = append(got, m.Visible())
	}
	if strings.Join(got, "|") != "question|final|Hello!" {
		t.Errorf("thread shows %q", got)
	}
	if !thread[1].Edited || thread[2].Streaming || thread[1].ThreadTS != root {
		t.Errorf("thread = %+v", thread)
	}
	if e := srv.Ephemerals(bob); len(e) != 1 || e[0].Text != "only bob" {
		t.Errorf("Ephemerals(bob) = %+v", e)
	}
	if len(srv.CallsTo("chat.appendStream")) != 2 {
		t.Errorf("calls = %+v", srv.Calls())
	}

	// Replies come back through conversations.replies too.
	msgs, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: root})
	if err != nil || len(msgs) != 3 || msgs[2].Text != "Hello!" {
		t.Errorf("replies = %+v, %v", msgs, err)
	}
}

func assertSlackErr(t *testing.T, err error, code string) {
	t.Helper()
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) || se.Err != code {
		t.Errorf("err = %v, want slack error %q", err, code)
	}
}

func TestUpdateErrors(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	_, ts, err := api.PostMessageContext(ctx, channel, slack.MsgOptionText("short", false))
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText(strings.Repeat("a", 4001), false))
	assertSlackErr(t, err, "msg_too_long")
	if _, _, _, err := api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText(strings.Repeat("a", 4000), false)); err != nil {
		t.Errorf("4,000 chars: %v", err)
	}
	_, _, _, err = api.UpdateMessageContext(ctx, channel, "1.000001", slack.MsgOptionText("x", false))
	assertSlackErr(t, err, "message_not_found")
	user := srv.PostUserMessage(channel, alice, "mine", "")
	_, _, _, err = api.UpdateMessageContext(ctx, channel, user, slack.MsgOptionText("x", false))
	assertSlackErr(t, err, "cant_update_message")
}

func TestRateLimitsAndFaults(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t, slacktest.WithLimit("chat.update", slacktest.Limit{PerMinute: 1, Burst: 1}))
	_, ts, err := api.PostMessageContext(ctx, channel, slack.MsgOptionText("a", false))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText("b", false)); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText("c", false))
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter < time.Second || rl.RetryAfter > time.Minute {
		t.Fatalf("err = %v, want RateLimitedError with Retry-After ≤ 60s", err)
	}
	srv.SetLimit("chat.update", slacktest.Limit{}) // off
	if _, _, _, err := api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText("d", false)); err != nil {
		t.Fatalf("limit off: %v", err)
	}

	srv.FailNext("chat.postMessage", 2, slacktest.FaultRateLimited)
	srv.FailNext("chat.postMessage", 1, slacktest.FaultServerError)
	srv.FailNext("chat.postMessage", 1, slacktest.FaultDropConnection)
	for range 2 {
		_, _, err = api.PostMessageContext(ctx, channel, slack.MsgOptionText("x", false))
		if !errors.As(err, &rl) || rl.RetryAfter != time.Second {
			t.Errorf("storm: err = %v", err)
		}
	}
	_, _, err = api.PostMessageContext(ctx, channel, slack.MsgOptionText("x", false))
	var sc slack.StatusCodeError
	if !errors.As(err, &sc) || sc.Code != 500 || !sc.Retryable() {
		t.Errorf("500: err = %v", err)
	}
	if _, _, err = api.PostMessageContext(ctx, channel, slack.MsgOptionText("x", false)); err == nil {
		t.Error("dropped connection: no error")
	}
	if _, _, err = api.PostMessageContext(ctx, channel, slack.MsgOptionText("ok", false)); err != nil {
		t.Errorf("after faults: %v", err)
	}
}

func TestAuth(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	resp, err := api.AuthTestContext(ctx)
	if err != nil || resp.UserID != srv.BotUserID() || resp.TeamID != srv.TeamID() || resp.BotID != srv.BotID() {
		t.Fatalf("auth.test = %+v, %v", resp, err)
	}
	bad := slack.New("xoxb-wrong", slack.OptionAPIURL(srv.URL+"/"))
	_, err = bad.AuthTestContext(ctx)
	assertSlackErr(t, err, "invalid_auth")
	_, err = api.GetUserInfoContext(ctx, "U404")
	if err == nil || err.Error() != "user_not_found" {
		t.Errorf("users.info unknown: %v", err)
	}
	if u, err := api.GetUserInfoContext(ctx, alice); err != nil || u.Name != "alice" {
		t.Errorf("users.info = %+v, %v", u, err)
	}
}

func TestStreamPreconditionsAndFallbackSwitch(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	root := srv.PostUserMessage(channel, alice, "q", "")
	_, _, err := api.StartStreamContext(ctx, channel, slack.MsgOptionTS(root))
	assertSlackErr(t, err, "missing_recipient_user_id")
	_, _, err = api.StartStreamContext(ctx, channel, slack.MsgOptionTS(root), slack.MsgOptionRecipientUserID(alice))
	assertSlackErr(t, err, "missing_recipient_team_id")
	dmRoot := srv.PostUserMessage(dm, alice, "q", "")
	if _, _, err := api.StartStreamContext(ctx, dm, slack.MsgOptionTS(dmRoot)); err != nil {
		t.Errorf("DM stream without recipients: %v", err)
	}
	srv.SetStreamingError("missing_scope")
	_, _, err = api.StartStreamContext(ctx, dm, slack.MsgOptionTS(dmRoot))
	assertSlackErr(t, err, "missing_scope")
	srv.SetStreamingError("unknown_method")
	_, _, err = api.StartStreamContext(ctx, dm, slack.MsgOptionTS(dmRoot))
	assertSlackErr(t, err, "unknown_method")
}

func TestReconnects(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	sm := runSocket(t, ctx, api)

	srv.Disconnect()
	next(t, ctx, sm, socketmode.EventTypeHello)
	srv.DropConnection()
	next(t, ctx, sm, socketmode.EventTypeHello)
	if err := srv.WaitFor(ctx, func() bool { return srv.Connected() }); err != nil {
		t.Fatal(err)
	}
	if n := srv.Connections(); n != 3 {
		t.Errorf("Connections = %d, want 3", n)
	}
	ts := srv.PostUserMessage(dm, alice, "still there?", "")
	evt := next(t, ctx, sm, socketmode.EventTypeEventsAPI)
	_ = sm.Ack(*evt.Request)
	if m := evt.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent); m.TimeStamp != ts {
		t.Errorf("after reconnect got %+v", m)
	}
}

func TestClickAndSlashCommand(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	sm := runSocket(t, ctx, api)
	root := srv.PostUserMessage(channel, alice, "go", "")
	_ = next(t, ctx, sm, socketmode.EventTypeEventsAPI) // the message; acked or not, it does not matter here

	approve := slack.NewButtonBlockElement("approve", "appr-1", slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false))
	_, ts, err := api.PostMessageContext(ctx, channel, slack.MsgOptionTS(root), slack.MsgOptionText("run tool?", false),
		slack.MsgOptionBlocks(slack.NewActionBlock("approval", approve)))
	if err != nil {
		t.Fatal(err)
	}
	srv.Click(channel, ts, "approve", "appr-1", bob)
	evt := next(t, ctx, sm, socketmode.EventTypeInteractive)
	_ = sm.Ack(*evt.Request)
	cb := evt.Data.(slack.InteractionCallback)
	if cb.Type != slack.InteractionTypeBlockActions || cb.User.ID != bob || cb.Container.MessageTs != ts ||
		cb.Container.ThreadTs != root || len(cb.ActionCallback.BlockActions) != 1 {
		t.Fatalf("callback = %+v", cb)
	}
	if a := cb.ActionCallback.BlockActions[0]; a.ActionID != "approve" || a.Value != "appr-1" || a.BlockID != "approval" {
		t.Errorf("action = %+v", a)
	}
	if _, _, err := api.PostMessageContext(ctx, "", slack.MsgOptionReplaceOriginal(cb.ResponseURL), slack.MsgOptionText("approved by bob", false)); err != nil {
		t.Fatalf("response_url: %v", err)
	}
	if th := srv.Thread(channel, root); len(th) != 2 || th[1].Text != "approved by bob" {
		t.Errorf("thread after replace = %+v", th)
	}

	srv.SlashCommand("/parley", "memory", alice, channel)
	evt = next(t, ctx, sm, socketmode.EventTypeSlashCommand)
	cmd := evt.Data.(slack.SlashCommand)
	if cmd.Command != "/parley" || cmd.Text != "memory" || cmd.UserID != alice || cmd.ChannelID != channel || !evt.Request.AcceptsResponsePayload {
		t.Fatalf("slash = %+v", cmd)
	}
	_ = sm.Ack(*evt.Request, map[string]any{"response_type": "ephemeral", "text": "your memory"})
	if err := srv.WaitFor(ctx, func() bool { return len(srv.Ephemerals(alice)) == 1 }); err != nil {
		t.Fatal(err)
	}
	if e := srv.Ephemerals(alice)[0]; e.Text != "your memory" || e.Source != "slash_ack" {
		t.Errorf("ephemeral = %+v", e)
	}
}

func TestAssistantThread(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	sm := runSocket(t, ctx, api)
	srv.AssistantThreadStarted(dm, "1700000000.999900", alice)
	evt := next(t, ctx, sm, socketmode.EventTypeEventsAPI)
	_ = sm.Ack(*evt.Request)
	ev, ok := evt.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.AssistantThreadStartedEvent)
	if !ok || ev.AssistantThread.UserID != alice || ev.AssistantThread.ChannelID != dm {
		t.Fatalf("event = %+v", evt.Data)
	}
	if err := api.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{
		ChannelID: dm, ThreadTS: ev.AssistantThread.ThreadTimeStamp, Status: "is thinking…"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.AssistantStatus(dm, ev.AssistantThread.ThreadTimeStamp); got != "is thinking…" {
		t.Errorf("status = %q", got)
	}
}

// received is one events_api envelope a client got.
type received struct {
	client   int
	envelope string
	ts       string // the message's
	attempt  int
}

// client is one of an app's Socket Mode connections, as each replica of
// a bot opens one.
type client struct {
	sm   *socketmode.Client
	stop func() // closes its connection and waits for it to end
}

// startClients opens n Socket Mode connections for one app, each
// reporting the message events it gets to out and acking those ack
// allows; it returns once the fake has them all open.
func startClients(t *testing.T, ctx context.Context, srv *slacktest.Server, api *slack.Client, n int,
	out chan<- received, ack func(received) bool) []client {
	t.Helper()
	clients := make([]client, n)
	for i := range clients {
		sm := runSocket(t, ctx, api)
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-runCtx.Done():
					return
				case evt := <-sm.Events:
					if evt.Type != socketmode.EventTypeEventsAPI {
						continue
					}
					msg, ok := evt.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
					if !ok {
						continue
					}
					r := received{client: i, envelope: evt.Request.EnvelopeID, ts: msg.TimeStamp, attempt: evt.Request.RetryAttempt}
					if ack(r) {
						_ = sm.Ack(*evt.Request)
					}
					select {
					case out <- r:
					case <-runCtx.Done():
						return
					}
				}
			}
		}()
		var once sync.Once
		clients[i] = client{sm: sm, stop: func() { once.Do(func() { cancel(); <-done }) }}
		t.Cleanup(clients[i].stop)
	}
	if err := srv.WaitFor(ctx, func() bool { return srv.OpenConnections() == n }); err != nil {
		t.Fatalf("waiting for %d open connections: %v (%d open)", n, err, srv.OpenConnections())
	}
	return clients
}

func always(received) bool { return true }

// TestEventsSpreadOverConnections: with two connections open, each new
// event goes over one of them, in turn, so both get their share.
func TestEventsSpreadOverConnections(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	out := make(chan received, 16)
	startClients(t, ctx, srv, api, 2, out, always)

	const posts = 6
	for i := range posts {
		srv.PostUserMessage(dm, alice, "hello "+string(rune('a'+i)), "")
	}
	per := map[int]int{}
	for range posts {
		select {
		case r := <-out:
			per[r.client]++
		case <-ctx.Done():
			t.Fatalf("events so far %v: %v", per, ctx.Err())
		}
	}
	if per[0] != posts/2 || per[1] != posts/2 {
		t.Fatalf("events per connection = %v, want %d each", per, posts/2)
	}
	if err := srv.WaitFor(ctx, func() bool { return len(srv.Acks()) == posts }); err != nil {
		t.Fatalf("acks = %d, want %d: %v", len(srv.Acks()), posts, err)
	}
}

// TestUnackedEnvelopeRedeliveredOverAnotherConnection: an envelope one
// connection leaves unacked comes again over the other, where its ack
// ends it: one ack, no further delivery.
func TestUnackedEnvelopeRedeliveredOverAnotherConnection(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t, slacktest.WithAckTimeout(100*time.Millisecond))
	out := make(chan received, 16)
	// The first sighting is left unacked, a redelivery acked.
	startClients(t, ctx, srv, api, 2, out, func(r received) bool { return r.attempt > 0 })

	ts := srv.PostUserMessage(dm, alice, "hello", "")
	var got []received
	for len(got) < 2 {
		select {
		case r := <-out:
			got = append(got, r)
		case <-ctx.Done():
			t.Fatalf("deliveries so far %+v: %v", got, ctx.Err())
		}
	}
	first, again := got[0], got[1]
	if first.ts != ts || again.envelope != first.envelope || again.attempt != 1 || again.client == first.client {
		t.Fatalf("deliveries %+v: want the same envelope again, retry 1, over the other connection", got)
	}
	if err := srv.WaitFor(ctx, func() bool { return len(srv.Acks()) == 1 }); err != nil {
		t.Fatal(err)
	}
	if a := srv.Acks(); a[0].EnvelopeID != first.envelope {
		t.Fatalf("acks %+v", a)
	}
	// Acked, it is no longer pending: nothing more comes, however long
	// past the ack deadline.
	select {
	case r := <-out:
		t.Fatalf("delivered again after its ack: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	if d := srv.Delivered(); len(d) != 2 {
		t.Fatalf("Delivered = %+v, want the envelope twice", d)
	}
}

// TestConnectionClosingLosesNothing: one of two connections goes away
// with envelopes it never acked while people keep writing; every event
// is acked in the end, over the connection that stayed.
func TestConnectionClosingLosesNothing(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t, slacktest.WithAckTimeout(100*time.Millisecond))
	out := make(chan received, 64)
	// Client 0 acks nothing: it dies with what it got.
	clients := startClients(t, ctx, srv, api, 2, out, func(r received) bool { return r.client != 0 })

	posted := map[string]bool{}
	post := func(n int) {
		for i := range n {
			posted[srv.PostUserMessage(dm, alice, "message "+string(rune('a'+len(posted)+i)), "")] = true
		}
	}
	post(4)
	// Wait until the doomed connection holds one, then close it.
	for doomed := false; !doomed; {
		select {
		case r := <-out:
			doomed = r.client == 0
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
	clients[0].stop()
	post(4)

	acked := func() map[string]bool {
		ids := map[string]bool{}
		for _, a := range srv.Acks() {
			ids[a.EnvelopeID] = true
		}
		return ids
	}
	if err := srv.WaitFor(ctx, func() bool { return len(acked()) == len(posted) }); err != nil {
		t.Fatalf("acked %d of %d envelopes: %v", len(acked()), len(posted), err)
	}
	ids := acked()
	seen := map[string]bool{}
	for _, e := range srv.Delivered() {
		if !ids[e.EnvelopeID] {
			t.Errorf("envelope %s delivered, never acked", e.EnvelopeID)
		}
		seen[e.EnvelopeID] = true
	}
	if len(seen) != len(posted) {
		t.Fatalf("%d envelopes for %d messages", len(seen), len(posted))
	}
}
