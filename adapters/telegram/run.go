package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/backoff"
)

// allowedUpdates are the only updates Parley acts on.
const allowedUpdates = `["message","callback_query"]`

// Backoff between failed attempts: doubling from backoffMin, capped
// (retryWait).
const (
	backoffMin = time.Second
	backoffMax = time.Minute
)

// Prepare starts, in the background, what Run needs from Telegram before
// its first poll: who the bot is (getMe) and, when polling, the webhook
// gone (deleteWebhook). Parley calls it while the store opens, so that
// Run, called after, finds both answered and polls at once (on a start,
// the round trip overlaps the ~3 ms of opening the store; docs/footprint.md).
// ctx bounds the calls. Run works without it; a failed getMe is asked
// again by Run, which reports it.
func (a *Adapter) Prepare(ctx context.Context) {
	go func() { _, _ = a.me.Fetch(ctx, a.whoAmI) }()
	if a.cfg.Mode == ModeWebhook {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.unhooked == nil {
		a.unhooked = a.dropWebhook(ctx)
	}
}

// Run receives updates until ctx ends, then returns nil. It first asks
// getMe who the bot is (retrying while Telegram is unreachable; a refused
// token is returned at once), then polls or serves the webhook
// (Config.Mode) while it registers the command menu.
func (a *Adapter) Run(ctx context.Context, h chat.Handler) error {
	// Polling needs the webhook gone, not getMe's answer: both calls go
	// out at once (or went out at Prepare), one round trip to Telegram
	// less before the first poll.
	var unhooked <-chan struct{}
	if a.cfg.Mode != ModeWebhook {
		unhooked = a.takeUnhooked(ctx)
	}
	me, err := a.me.Fetch(ctx, a.whoAmI)
	if err != nil {
		if unhooked != nil {
			<-unhooked
		}
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	a.log.Info("connected to Telegram", "bot", "@"+me.UserName, "id", me.ID, "mode", a.cfg.Mode)
	// The sweep and the command menu run beside receiving, and end with
	// it: nothing received needs the menu, so the first getUpdates does
	// not wait a round trip to Telegram for it.
	var background adapterkit.Group
	defer background.Stop()
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	background.Go(sctx, func() { a.setCommands(sctx) })
	background.Go(sctx, func() { a.sweepChains(sctx) })
	if a.cfg.Mode == ModeWebhook {
		return a.serveWebhook(ctx, h)
	}
	return a.poll(ctx, h, unhooked)
}

// takeUnhooked is the webhook's removal Prepare started, or one started
// now.
func (a *Adapter) takeUnhooked(ctx context.Context) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.unhooked
	a.unhooked = nil
	if u == nil {
		u = a.dropWebhook(ctx)
	}
	return u
}

// whoAmI is getMe, retried with backoff until it answers or ctx ends.
func (a *Adapter) whoAmI(ctx context.Context) (tgbotapi.User, error) {
	for failures := 0; ; failures++ {
		res, err := a.call(ctx, "getMe", nil)
		if err == nil {
			var me tgbotapi.User
			if err := json.Unmarshal(res, &me); err != nil || me.ID == 0 {
				return tgbotapi.User{}, fmt.Errorf("telegram getMe: not a bot in the answer %.200q", res)
			}
			return me, nil
		}
		if isFatal(err) {
			return tgbotapi.User{}, fmt.Errorf("telegram: who am I (getMe): %w", err)
		}
		a.log.Warn("Telegram unreachable; retrying getMe", "attempt", failures+1, "err", err)
		if err := a.sleep(ctx, retryWait(err, failures)); err != nil {
			return tgbotapi.User{}, err
		}
	}
}

// setCommands registers the command menu. A failure only costs the menu.
func (a *Adapter) setCommands(ctx context.Context) {
	menu := chat.Menu()
	cmds := make([]tgbotapi.BotCommand, len(menu))
	for i, c := range menu {
		cmds[i] = tgbotapi.BotCommand{Command: c.Name, Description: c.Description}
	}
	p := tgbotapi.Params{}
	err := p.AddInterface("commands", cmds)
	if err == nil {
		_, err = a.call(ctx, "setMyCommands", p)
	}
	if err != nil {
		a.log.Warn("command menu not registered", "err", err)
	}
}

// retryWait is how long to wait after the failures-th consecutive failure
// (from 0): Telegram's retry_after when it gave one, else a doubling
// backoff, jittered so that restarted instances do not retry in step.
func retryWait(err error, failures int) time.Duration {
	if d, ok := chat.RetryAfter(err); ok {
		return d
	}
	return backoff.Policy{Base: backoffMin, Cap: backoffMax, Jitter: backoff.Equal}.Delay(failures)
}

// dispatch hands one raw update to h. An error means the update was not
// recorded and must be retried; an update that can never be understood is
// logged and skipped (nil error).
func (a *Adapter) dispatch(ctx context.Context, h chat.Handler, raw json.RawMessage) error {
	u, err := decodeUpdate(raw)
	if err != nil {
		a.log.Warn("update skipped", "err", err, "update", truncate(string(raw), 500))
		return nil
	}
	me := a.self()
	switch {
	case u.tg.Message != nil:
		m, ok, err := a.normalizeMessage(ctx, u.tg.Message, u.ext.Message, me)
		if err != nil || !ok {
			return err
		}
		return h.HandleMessage(ctx, m)
	case u.tg.CallbackQuery != nil:
		var x *extMessage
		if u.ext.CallbackQuery != nil {
			x = u.ext.CallbackQuery.Message
		}
		return a.click(ctx, h, u.tg.CallbackQuery, x)
	}
	return nil
}

// click hands a button click to h, then answers the query if the handler
// did not: Telegram keeps the clicker's spinner turning until it is
// answered, and each query takes one answer.
func (a *Adapter) click(ctx context.Context, h chat.Handler, q *tgbotapi.CallbackQuery, x *extMessage) error {
	act, ok, err := a.normalizeAction(ctx, q, x)
	if err != nil {
		return err
	}
	ans := &answer{a: a, id: q.ID}
	if ok {
		act.Respond = ans.respond
		if err := h.HandleAction(ctx, act); err != nil {
			// Not recorded: the update is retried, and answered then.
			return err
		}
	}
	if ans.claim() {
		if err := a.answerQuery(ctx, q.ID, ""); err != nil {
			a.log.Info("callback query not answered", "query", q.ID, "err", err)
		}
	}
	return nil
}

// answer is one callback query's single answer.
type answer struct {
	a  *Adapter
	id string

	mu       sync.Mutex
	answered bool
}

// claim reports whether the caller may answer: true once.
func (q *answer) claim() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.answered {
		return false
	}
	q.answered = true
	return true
}

// respond is chat.Action.Respond: an alert only the clicker sees.
func (q *answer) respond(ctx context.Context, text string) error {
	if !q.claim() {
		return fmt.Errorf("telegram: callback query %s is answered already", q.id)
	}
	err := q.a.answerQuery(ctx, q.id, text)
	if _, limited := chat.RetryAfter(err); limited || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// Not answered: the caller may try again, or the default answer
		// after the handler goes out.
		q.mu.Lock()
		q.answered = false
		q.mu.Unlock()
	}
	return err
}

func (a *Adapter) answerQuery(ctx context.Context, id, text string) error {
	p := tgbotapi.Params{"callback_query_id": id}
	if text != "" {
		p["text"] = truncate(format.Plain(text), maxAlertLen)
		p.AddBool("show_alert", true)
	}
	_, err := a.call(ctx, "answerCallbackQuery", p)
	return err
}

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
