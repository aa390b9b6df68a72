package outbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
)

// DeliveryConfig configures a Delivery. Adapter and Outbox are required.
type DeliveryConfig struct {
	Adapter chat.Adapter
	Outbox  Outbox
	// Pacer paces the adapter's sends and edits. Every Delivery of one
	// adapter must share one Pacer, or their budgets add up. Nil: a Pacer
	// built from the adapter's Capabilities.
	Pacer *Pacer
	// Split cuts Markdown into parts that measure at most limit, keeping
	// code fences balanced (the wiring passes bot/format.Split). Nil: a
	// plain cut at line ends that knows nothing of Markdown.
	Split func(md string, limit int, measure func(string) int) []string
	// Now and Sleep are the clock (defaults: time.Now and a timer). Sleep
	// returns nil once d has passed, or ctx's error.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives delivery failures (default slog.Default()).
	Logger *slog.Logger
	// FinalDeadline bounds the delivery of a final answer, retries and
	// waiting for the platform's budget included (default 10 min: a busy
	// Slack workspace edits ~50 messages a minute, and an answer shown
	// late beats one that never is). Past it the reply is marked failed.
	FinalDeadline time.Duration
	// CallTimeout bounds each platform call, on the wall clock, in case a
	// client hangs (default 30 s).
	CallTimeout time.Duration
	// TypingEvery repeats the typing indicator until the first message
	// shows, since platforms clear it after a few seconds (default: 4/5
	// of the adapter's Capabilities.TypingLasts, else 5 s; negative: show
	// it once).
	TypingEvery time.Duration
	// FirstFrameAfter is how long a fresh reply shows nothing but the
	// typing indicator before its first frame (a placeholder, a draft, a
	// native stream): an answer the model finishes sooner goes out once,
	// as the final message, with no frame to edit and no interval of the
	// platform's budget to wait for. Default: the interval of the reply's
	// edit budget (Pacer.Interval), at most 1 s; negative: show the first
	// frame at once.
	FirstFrameAfter time.Duration
	// NativeFallback is how long the replies of a workspace (Thread.Space)
	// where an adapter's StartStream failed go straight to send+edit
	// (default 10 min). Only used when the Adapter is a Streamer.
	NativeFallback time.Duration
}

// Delivery shows agent answers on one platform: one state machine per
// reply (docs/architecture.md, "The flow" and "One reply, one message").
// Safe for concurrent use; it keeps no state between replies beyond the
// Pacer's and the workspaces where native streams recently failed to start.
type Delivery struct {
	cfg      DeliveryConfig
	platform string
	caps     chat.Capabilities
	measure  func(string) int
	maxLen   int               // 0: unlimited
	splitAt  int               // 0: never split
	streamer chat.Streamer     // nil: the adapter has no native streaming
	closer   chat.StreamCloser // nil: it cannot close an interrupted stream
	shower   chat.StatusShower // nil: a native stream's status goes by Typing
	natives  nativeMemo
}

// NewDelivery returns a Delivery configured by cfg.
func NewDelivery(cfg DeliveryConfig) (*Delivery, error) {
	if cfg.Adapter == nil || cfg.Outbox == nil {
		return nil, errors.New("delivery: Adapter and Outbox are required")
	}
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.FinalDeadline <= 0 {
		cfg.FinalDeadline = 10 * time.Minute
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 30 * time.Second
	}
	if cfg.TypingEvery == 0 {
		cfg.TypingEvery = 5 * time.Second
		if lasts := cfg.Adapter.Capabilities().TypingLasts; lasts > 0 {
			// Renewed before it fades, so it never flickers off.
			cfg.TypingEvery = lasts * 4 / 5
		}
	}
	if cfg.NativeFallback <= 0 {
		cfg.NativeFallback = 10 * time.Minute
	}
	d := &Delivery{cfg: cfg, platform: cfg.Adapter.Platform(), caps: cfg.Adapter.Capabilities()}
	d.streamer, _ = cfg.Adapter.(chat.Streamer)
	d.closer, _ = cfg.Adapter.(chat.StreamCloser)
	d.shower, _ = cfg.Adapter.(chat.StatusShower)
	if d.cfg.Pacer == nil {
		d.cfg.Pacer = NewPacer(PacerConfig{Platform: d.platform, Capabilities: d.caps, Now: cfg.Now, Sleep: cfg.Sleep})
	}
	if d.cfg.Split == nil {
		d.cfg.Split = cutLines
	}
	d.measure = d.caps.Size
	d.maxLen = max(d.caps.MaxLen, 0)
	d.splitAt = d.caps.SplitAt
	if d.splitAt <= 0 || (d.maxLen > 0 && d.splitAt > d.maxLen) {
		d.splitAt = d.maxLen
	}
	return d, nil
}

// Begin opens the reply to the inbound event inboxKey in t and shows at
// once that an answer is coming (adapter.Typing). When the outbox already
// holds a record for inboxKey (the turn is re-run or re-delivered after a
// crash) the reply continues its messages: they are edited, never posted
// again; a reply already delivered shows nothing more.
//
// ctx bounds the streaming only: Finish delivers the final answer even
// after ctx has ended, and must be called for every Begin. u, the asker,
// is the recipient of a native stream (Slack requires one outside DMs).
//
// A fresh reply streams natively when the adapter is a Streamer (see
// delivery_native.go); a reply that finds a record never does, so one
// inbox key never gets a second stream.
func (d *Delivery) Begin(ctx context.Context, inboxKey, sessionID string, t chat.Thread, u chat.User, replyTo string) (*ReplyWriter, error) {
	if inboxKey == "" {
		return nil, errors.New("delivery: reply without an inbox key")
	}
	rec, ok, err := d.cfg.Outbox.Reply(ctx, inboxKey)
	if err != nil {
		return nil, fmt.Errorf("delivery: load reply %q: %w", inboxKey, err)
	}
	orphan := false
	if !ok {
		rec = OutboxRecord{InboxKey: inboxKey, SessionID: sessionID, Thread: t, Status: ReplyStreaming}
	} else {
		// A stream an earlier process left open is closed before its
		// message is edited; without a StreamCloser the edits wait for
		// the platform to end it.
		orphan = rec.Status == ReplyNativeStreaming && len(rec.Refs) > 0 && d.closer != nil
		if rec.Status != ReplyDelivered && rec.Status != ReplyPosting && !orphan {
			rec.Status = ReplyStreaming // a failed or interrupted reply is tried again
		}
		if rec.Thread.Platform != "" {
			t = rec.Thread // the messages it holds live there
		}
	}
	return d.newWriter(ctx, rec, ok, orphan, t, u, replyTo), nil
}
