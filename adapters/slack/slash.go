package slack

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/chat"
)

// Slash commands (docs/platforms.md#slack-slash-commands) are answered best
// in the ack itself: the answer appears at once, privately, even where the
// bot is not a member of the channel. The core answers from inside
// HandleCommand, so the adapter waits for the handler up to the ack window
// and puts its first answer in the ack; anything later goes by response_url,
// and by chat.postEphemeral if that fails.
const (
	// slashAckWait leaves headroom in Slack's 3 s for the ack's trip.
	slashAckWait = 2500 * time.Millisecond
	// maxAckPayload: Slack silently drops Socket Mode responses of 20 KB
	// or more; the envelope adds a little to the payload.
	maxAckPayload = 19 * 1024
)

// commandFailed is the answer when the handler failed before answering,
// so the person is not left with silence.
const commandFailed = "Sorry, that command failed. Please try again in a moment."

// slashReply holds a command's first answer until the ack goes out.
type slashReply struct {
	mu    sync.Mutex
	acked bool
	first *chat.Out
}

// offer keeps out for the ack and reports true, or reports false once
// the ack has gone or an answer is already waiting for it.
func (r *slashReply) offer(out chat.Out) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.acked || r.first != nil {
		return false
	}
	r.first = &out
	return true
}

// close marks the ack as sent and returns the answer it carries.
func (r *slashReply) close() *chat.Out {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acked = true
	return r.first
}

// slashCommand hands a slash command to the handler and acks it, with the
// handler's answer when it came in time. ack is called exactly once, with
// the ack's payload or nil: a Socket Mode ack, or the HTTP response in
// HTTP mode. slashCommand returns once the handler has.
func (a *Adapter) slashCommand(ctx context.Context, h chat.Handler, sc slack.SlashCommand, ack func(payload any)) {
	cmd, ok := normalizeCommand(&sc)
	if !ok {
		ack(nil)
		return
	}
	reply := &slashReply{}
	cmd.Respond = func(ctx context.Context, out chat.Out) error {
		if reply.offer(out) {
			return nil
		}
		return a.respondLater(ctx, sc, out)
	}

	var herr error
	handled := make(chan struct{})
	go func() {
		defer close(handled)
		herr = h.HandleCommand(ctx, cmd)
	}()
	timer := time.NewTimer(slashAckWait)
	defer timer.Stop()
	failed := false
	select {
	case <-handled:
		if herr != nil {
			a.log.Error("slash command failed", "command", sc.Command, "text", sc.Text, "err", herr)
			failed = true
		}
	case <-timer.C:
	case <-ctx.Done():
	}

	first := reply.close()
	if first == nil && failed {
		first = &chat.Out{Text: commandFailed}
	}
	payload, later := ackPayload(first)
	ack(payload)
	if later != nil {
		if err := a.respondLater(ctx, sc, *later); err != nil {
			a.log.Error("slash command answer lost", "command", sc.Command, "err", err)
		}
	}
	<-handled
}

// ackPayload is the ack carrying out as an ephemeral answer; later is set
// instead when out cannot go in the ack (too big for Socket Mode, or not
// renderable, in which case respondLater reports why).
func ackPayload(out *chat.Out) (payload any, later *chat.Out) {
	if out == nil {
		return nil, nil
	}
	r, err := renderOut(*out)
	if err != nil {
		return nil, out
	}
	p := map[string]any{"response_type": "ephemeral", "text": r.text}
	if len(r.blocks) > 0 {
		p["blocks"] = r.blocks
	}
	if b, err := json.Marshal(p); err != nil || len(b) >= maxAckPayload {
		return nil, out
	}
	return p, nil
}

// respondLater answers a slash command after its ack: by response_url,
// which works in channels the bot is not in, else ephemerally.
func (a *Adapter) respondLater(ctx context.Context, sc slack.SlashCommand, out chat.Out) error {
	r, err := renderOut(out)
	if err != nil {
		return err
	}
	if sc.ResponseURL != "" {
		msg := &slack.WebhookMessage{ResponseType: "ephemeral", Text: r.text}
		if len(r.blocks) > 0 {
			msg.Blocks = &slack.Blocks{BlockSet: r.blocks}
		}
		err := slack.PostWebhookCustomHTTPContext(ctx, sc.ResponseURL, a.http, msg)
		if err == nil {
			return nil
		}
		a.log.Info("response_url refused the answer; trying an ephemeral message", "err", err)
	}
	return a.postEphemeral(ctx, sc.ChannelID, "", sc.UserID, out)
}
