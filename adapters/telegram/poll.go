package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/chat"
)

// dropWebhook removes any webhook, which makes getUpdates fail with 409,
// keeping the pending updates; the channel closes once Telegram answered
// (or the call failed, which polling then meets as a 409 and reports).
func (a *Adapter) dropWebhook(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := a.call(ctx, "deleteWebhook", tgbotapi.Params{"drop_pending_updates": "false"}); err != nil && ctx.Err() == nil {
			a.log.Warn("deleteWebhook failed; polling may meet 409 Conflict", "err", err)
		}
	}()
	return done
}

// pollSlack is how much longer than the long-poll timeout a getUpdates
// call may take before it counts as hung.
const pollSlack = 15 * time.Second

// poll is Run in polling mode (docs/platforms.md#telegram-receiving): our
// own getUpdates loop, since the library's ignores retry_after and has no
// context.
//
// The offset is saved after each update has been handed to h and h
// returned nil, and confirms the update to Telegram on the next call: a
// restart repeats at most the update being handled (the router dedupes
// it by Key) and loses none.
func (a *Adapter) poll(ctx context.Context, h chat.Handler, unhooked <-chan struct{}) error {
	key := a.offsetKey()
	offset, err := a.loadOffset(ctx, key)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	<-unhooked
	failures := 0
	a.connected.Store(true)
	defer a.connected.Store(false)
	for ctx.Err() == nil {
		batch, err := a.getUpdates(ctx, offset)
		a.connected.Store(err == nil)
		if err == nil {
			err = a.handleBatch(ctx, h, key, batch, &offset)
		}
		if err == nil {
			failures = 0
			continue
		}
		if ctx.Err() != nil {
			break
		}
		if isFatal(err) {
			return fmt.Errorf("telegram: polling stopped: %w", err)
		}
		a.logPollError(err, failures)
		if a.sleep(ctx, retryWait(err, failures)) != nil {
			break
		}
		failures++
	}
	return nil
}

// getUpdates long-polls for the updates from offset on, bound to ctx so
// that shutdown aborts it.
func (a *Adapter) getUpdates(ctx context.Context, offset int) ([]json.RawMessage, error) {
	p := tgbotapi.Params{
		"timeout":         strconv.Itoa(int(a.cfg.PollTimeout / time.Second)),
		"allowed_updates": allowedUpdates,
	}
	p.AddNonZero("offset", offset)
	cctx, cancel := context.WithTimeout(ctx, a.cfg.PollTimeout+pollSlack)
	defer cancel()
	res, err := a.call(cctx, "getUpdates", p)
	if err != nil {
		return nil, err
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(res, &batch); err != nil {
		return nil, fmt.Errorf("telegram getUpdates: not a list of updates: %w", err)
	}
	return batch, nil
}

// handleBatch hands the updates to h in order, advancing and saving the
// offset after each. It stops at the first update h failed to record: the
// next getUpdates starts from it again.
func (a *Adapter) handleBatch(ctx context.Context, h chat.Handler, key string, batch []json.RawMessage, offset *int) error {
	for _, raw := range batch {
		if ctx.Err() != nil {
			return nil // stopping: the rest are fetched again next time
		}
		id, ok := updateID(raw)
		if !ok {
			// Without an id it cannot be confirmed alone; the next
			// update's offset confirms it.
			a.log.Warn("update without update_id skipped", "update", truncate(string(raw), 500))
			continue
		}
		if id < *offset {
			continue // confirmed already: Telegram resent it
		}
		if err := a.dispatch(ctx, h, raw); err != nil {
			return fmt.Errorf("update %d not recorded: %w", id, err)
		}
		*offset = id + 1
		// Saved even when Run is stopping: the update was handled.
		if err := a.state.Set(context.WithoutCancel(ctx), key, strconv.Itoa(*offset)); err != nil {
			// Telegram still gets the offset with the next call; only a
			// restart would repeat updates, which the router dedupes.
			a.log.Warn("poll offset not saved", "offset", *offset, "err", err)
		}
	}
	return nil
}

// offsetKey is the State key of the poll offset: per bot, since update
// ids are.
func (a *Adapter) offsetKey() string {
	return "telegram:" + strconv.FormatInt(a.self().ID, 10) + ":offset"
}

func (a *Adapter) loadOffset(ctx context.Context, key string) (int, error) {
	v, ok, err := a.state.Get(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("telegram: load the poll offset: %w", err)
	}
	if !ok {
		return 0, nil
	}
	offset, err := strconv.Atoi(v)
	if err != nil {
		a.log.Warn("saved poll offset unreadable; starting from Telegram's", "value", v)
		return 0, nil
	}
	return offset, nil
}

// logPollError says what a failed poll means for the operator.
func (a *Adapter) logPollError(err error, failures int) {
	if e, ok := errors.AsType[*tgbotapi.Error](err); ok && e.Code == http.StatusConflict {
		a.log.Error("Telegram refuses to poll (409 Conflict): another process polls with this token, or a webhook is set; stop the other instance",
			"attempt", failures+1, "err", err)
		return
	}
	if d, ok := chat.RetryAfter(err); ok {
		a.log.Warn("Telegram rate-limited polling", "retry_after", d)
		return
	}
	a.log.Warn("polling failed; retrying", "attempt", failures+1, "err", err)
}
