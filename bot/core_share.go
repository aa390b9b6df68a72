package bot

import (
	"context"
	"time"
)

// senderFor is how long a replica keeps counting itself among the senders
// after its last session went idle: a lull between messages does not hand
// its share to the others only to take it back a moment later.
const senderFor = 30 * time.Second

// beat keeps this replica's share of the bot-wide rate limits current
// while it sends. A replica counts among the senders — a row it beats in
// the replicas register every BeatEvery — from the moment a session starts
// draining here until senderFor after the last one went idle; each beat's
// count of senders (itself included) becomes every pacer's share. So the
// budgets are split among the replicas that answer, not all that run: on
// Telegram the elected receiver, which runs every turn, keeps the whole
// budget while the others stand by. A replica that stops being a sender
// leaves the register and hands its share to the others at their next
// beat; one that dies drops out after three missed beats. It returns when
// ctx ends, having left.
func (c *Core) beat(ctx context.Context) {
	s := c.router.cfg.Sharing
	registered := false
	var lastBusy time.Time
	leave := func(ctx context.Context) {
		if err := s.Replicas.Leave(ctx, s.Holder); err != nil {
			c.cfg.Logger.Warn("replicas: leave", "err", err)
			return
		}
		registered = false
		c.out.SetShare(1)
	}
	defer func() {
		if registered {
			leave(context.WithoutCancel(ctx))
		}
	}()
	wake := make(chan struct{}, 1)
	for {
		now := c.cfg.Now()
		if c.router.draining() {
			lastBusy = now
		}
		switch {
		case !lastBusy.IsZero() && now.Sub(lastBusy) < senderFor:
			live, err := s.Replicas.Beat(ctx, s.Holder, now, now.Add(-beatWindow(s.BeatEvery)))
			if err != nil {
				if ctx.Err() == nil {
					c.cfg.Logger.Warn("replicas: beat", "err", err)
				}
				break
			}
			if !registered {
				c.out.Rejoin()
			}
			registered = true
			c.out.SetShare(live)
		case registered:
			leave(ctx)
		}
		// The next beat comes after BeatEvery, or at once when a session
		// starts draining while this replica is not counted.
		sleepCtx, stop := context.WithCancel(ctx)
		go func() {
			if c.cfg.Sleep(sleepCtx, s.BeatEvery) == nil {
				select {
				case wake <- struct{}{}:
				default: // a beat is due already
				}
			}
		}()
		select {
		case <-ctx.Done():
		case <-wake:
		case <-s.busy:
			if registered {
				select { // counted already: keep the rhythm
				case <-wake:
				case <-ctx.Done():
				}
			}
		}
		stop()
		if ctx.Err() != nil {
			return
		}
	}
}

// beatWindow is how long a replica counts as live after its last beat.
func beatWindow(every time.Duration) time.Duration { return 3 * every }
