package slack

import (
	"context"
	"fmt"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// nameLookupWait bounds a users.info call made while receiving: a name is
// a courtesy in the prompt and must not hold up the events behind it.
const nameLookupWait = 2 * time.Second

// Run receives events over Socket Mode until ctx ends
// (docs/platforms.md#slack-receiving).
// It first asks auth.test who the bot is, so a bad token is a clear fatal
// error rather than an endless reconnect loop, and so the bot can tell
// its own messages and mention.
//
// Acknowledging: a message is acked after the handler returns (it only
// records and enqueues, docs/architecture.md, The flow), so an event the
// handler failed to record is redelivered by Slack. Clicks are acked at
// once: Slack shows the clicker an error after 3 s, and a repeated click is
// harmless (approvals update WHERE status='pending'). Slash commands are
// acked with the handler's answer when it comes within the ack window
// (slash.go).
//
// In HTTP mode (Config.Mode ModeHTTP) Run serves the Events API,
// interactivity and slash-command endpoints on Config.Listen instead
// (http.go); the same normalization and acknowledging rules apply.
func (a *Adapter) Run(ctx context.Context, h chat.Handler) error {
	if _, err := a.me.Fetch(ctx, a.whoAmI); err != nil {
		return err
	}
	if a.cfg.Mode == ModeHTTP {
		return a.serveHTTP(ctx, h)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer a.connected.Store(false)
	sm := socketmode.New(a.api)
	done := make(chan error, 1)
	go func() { done <- sm.RunContext(ctx) }()

	// Slash-command answers run beside the loop; Run waits for them, since
	// a handler called after Run returned would race the shutdown.
	var pending adapterkit.Group
	defer pending.Stop()

	for {
		select {
		case <-ctx.Done():
			<-done
			return ctx.Err()
		case err := <-done:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("slack socket mode: %w", wrap("apps.connections.open", err))
		case evt := <-sm.Events:
			a.receive(ctx, sm, h, evt, &pending)
		}
	}
}

// whoAmI asks auth.test who the bot is, so a bad token is a clear fatal
// error, and so the bot can tell its own messages and mention.
func (a *Adapter) whoAmI(ctx context.Context) (self, error) {
	auth, err := a.api.AuthTestContext(ctx)
	if err != nil {
		return self{}, fmt.Errorf("slack: who am I (auth.test): %w", wrap("auth.test", err))
	}
	a.log.Info("connected to Slack", "team", auth.Team, "user", auth.User, "mode", a.cfg.Mode)
	return self{UserID: auth.UserID, BotID: auth.BotID, URL: auth.URL}, nil
}

// receive handles one Socket Mode event. It never waits for an answer to
// be written: the handler only records and enqueues.
func (a *Adapter) receive(ctx context.Context, sm *socketmode.Client, h chat.Handler, evt socketmode.Event, pending *adapterkit.Group) {
	switch evt.Type {
	case socketmode.EventTypeConnecting, socketmode.EventTypeConnected, socketmode.EventTypeHello:
		a.connected.Store(evt.Type != socketmode.EventTypeConnecting)
		a.log.Debug("socket mode", "event", evt.Type)
		return
	case socketmode.EventTypeDisconnect:
		a.connected.Store(false)
		a.log.Info("Slack asked to reconnect")
		return
	case socketmode.EventTypeInvalidAuth:
		a.log.Error("Slack refused the app-level token (slack.app_token, xapp-… with connections:write)")
		return
	case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError,
		socketmode.EventTypeErrorBadMessage, socketmode.EventTypeErrorWriteFailed:
		if evt.Type == socketmode.EventTypeConnectionError {
			a.connected.Store(false)
		}
		a.log.Warn("socket mode trouble; the client reconnects", "event", evt.Type, "data", fmt.Sprint(evt.Data))
		return
	}
	if evt.Request == nil {
		return
	}
	req := *evt.Request
	switch evt.Type {
	case socketmode.EventTypeEventsAPI:
		e, ok := evt.Data.(slackevents.EventsAPIEvent)
		if !ok {
			a.ack(ctx, sm, req, nil)
			return
		}
		if err := a.handleEvent(ctx, h, e); err != nil {
			// No ack: Slack redelivers, and the inbox dedupes.
			a.log.Error("event not recorded; Slack will redeliver it", "envelope", req.EnvelopeID, "err", err)
			return
		}
		a.ack(ctx, sm, req, nil)
	case socketmode.EventTypeInteractive:
		a.ack(ctx, sm, req, nil)
		if cb, ok := evt.Data.(slack.InteractionCallback); ok {
			a.handleInteraction(ctx, h, &cb)
		}
	case socketmode.EventTypeSlashCommand:
		sc, ok := evt.Data.(slack.SlashCommand)
		if !ok {
			a.ack(ctx, sm, req, nil)
			return
		}
		// Refused only once Run is stopping: unacked, Slack redelivers it.
		pending.Go(ctx, func() {
			a.slashCommand(ctx, h, sc, func(payload any) { a.ack(ctx, sm, req, payload) })
		})
	default:
		a.ack(ctx, sm, req, nil)
	}
}

// handleEvent normalizes an Events API event and hands it on. A new
// assistant thread gets its suggested prompts and goes no further
// (assistant.go), a Home tab opened goes to the handler's HandleHome
// (home.go); other events Parley does not act on are only acked.
func (a *Adapter) handleEvent(ctx context.Context, h chat.Handler, e slackevents.EventsAPIEvent) error {
	if ev, ok := e.InnerEvent.Data.(*slackevents.AssistantThreadStartedEvent); ok {
		a.assistantThreadStarted(ctx, ev)
		return nil
	}
	if ev, ok := e.InnerEvent.Data.(*slackevents.AppHomeOpenedEvent); ok {
		return a.homeOpened(ctx, h, e.TeamID, ev)
	}
	m, ok := normalizeEvent(e, a.identity())
	if !ok {
		return nil
	}
	if !m.FromBot {
		lctx, cancel := context.WithTimeout(ctx, nameLookupWait)
		p, err := a.users.get(lctx, m.User.ID)
		cancel()
		if err != nil {
			a.log.Debug("display name unknown", "user", m.User.ID, "err", err)
		}
		m.User.Name = p.name
	}
	if err := h.HandleMessage(ctx, m); err != nil {
		return err
	}
	a.titleThread(ctx, m)
	return nil
}

// handleInteraction hands a click on one of our buttons to the handler,
// with Respond answering the clicker; other interactions are ignored.
// The interaction is acknowledged already.
func (a *Adapter) handleInteraction(ctx context.Context, h chat.Handler, cb *slack.InteractionCallback) {
	act, ok := normalizeAction(cb)
	if !ok {
		return
	}
	act.Respond = a.clickResponder(act.Message.Thread, act.User.ID)
	if err := h.HandleAction(ctx, act); err != nil {
		a.log.Error("click not handled", "key", act.Key, "err", err)
	}
}

// clickResponder answers a clicker alone, ephemerally where they clicked.
func (a *Adapter) clickResponder(t chat.Thread, user string) func(context.Context, string) error {
	return func(ctx context.Context, text string) error {
		return a.postEphemeral(ctx, t.Chat, t.ID, user, chat.Out{Text: text})
	}
}

// ack acknowledges an envelope; a failure only means Slack redelivers,
// which the inbox absorbs.
func (a *Adapter) ack(ctx context.Context, sm *socketmode.Client, req socketmode.Request, payload any) {
	// AckCtx, not Ack: while the connection is down nothing drains the
	// response queue, and an ack must not outlive Run.
	if err := sm.AckCtx(ctx, req.EnvelopeID, payload); err != nil {
		a.log.Warn("ack failed; Slack will redeliver", "envelope", req.EnvelopeID, "err", err)
	}
}
