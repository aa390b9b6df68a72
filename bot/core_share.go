package bot

import (
	"context"
	"fmt"
	"time"
)

// beat registers this replica among those sharing the store and keeps
// its share of the bot-wide rate limits current: it beats every
// BeatEvery, and each beat's count of live replicas becomes every
// pacer's share. The first beat comes before anything is sent, and Run
// then waits one more beat interval, so that the replicas already running
// have counted this one before it draws on the budgets they share. stop
// ends the beats and leaves the register, handing the share back.
func (c *Core) beat(ctx context.Context) (stop func(), err error) {
	s := c.router.cfg.Sharing
	once := func(ctx context.Context) error {
		now := c.cfg.Now()
		live, err := s.Replicas.Beat(ctx, s.Holder, now, now.Add(-beatWindow(s.BeatEvery)))
		if err != nil {
			return err
		}
		c.out.setShare(live)
		return nil
	}
	if err := once(ctx); err != nil {
		return nil, fmt.Errorf("replicas: register: %w", err)
	}
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c.cfg.Sleep(bctx, s.BeatEvery) == nil {
			if err := once(bctx); err != nil && bctx.Err() == nil {
				c.cfg.Logger.Warn("replicas: beat", "err", err)
			}
		}
	}()
	stop = func() {
		cancel()
		<-done
		if err := s.Replicas.Leave(context.WithoutCancel(ctx), s.Holder); err != nil {
			c.cfg.Logger.Warn("replicas: leave", "err", err)
		}
	}
	if err := c.cfg.Sleep(ctx, s.BeatEvery); err != nil && ctx.Err() == nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// setShare splits every platform's bot-wide budgets n ways (Pacer.SetShare).
func (o *Outbound) setShare(n int) {
	for _, ol := range o.outlets {
		ol.pacer.SetShare(n)
	}
}

// beatWindow is how long a replica counts as live after its last beat.
func beatWindow(every time.Duration) time.Duration { return 3 * every }
