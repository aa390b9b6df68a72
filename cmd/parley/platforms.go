package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/parleybot/parley/adapters/inbound"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// expirySweep is how often undecided approvals are checked for expiry.
const expirySweep = 30 * time.Second

// runPlatforms runs the chat core over adapters until ctx ends: one
// delivery (with its shared pacer) per adapter, durable approvals, and the
// router, after resuming whatever a crash interrupted.
//
// web, when not nil, is served on http.listen for as long as the router
// runs; failing to listen stops everything.
func runPlatforms(ctx context.Context, a *app, adapters []bot.Adapter, web *inbound.Server, logger *slog.Logger) error {
	cfg := a.cfg
	byPlatform := map[string]bot.Adapter{}
	deliveries := map[string]*bot.Delivery{}
	for _, ad := range adapters {
		d, err := bot.NewDelivery(bot.DeliveryConfig{
			Adapter: ad,
			Outbox:  a.db,
			Pacer:   bot.NewPacer(bot.PacerConfig{Platform: ad.Platform(), Capabilities: ad.Capabilities()}),
			Split:   format.Split,
			Logger:  logger.With("platform", ad.Platform()),
		})
		if err != nil {
			return fmt.Errorf("%s delivery: %w", ad.Platform(), err)
		}
		byPlatform[ad.Platform()] = ad
		deliveries[ad.Platform()] = d
	}

	var router *bot.Router
	expiry := time.Duration(cfg.Tools.Approval.ExpireMinutes) * time.Minute
	approvals, err := bot.NewApprovals(bot.ApprovalsConfig{
		Store: a.db,
		Adapter: func(p string) (bot.Adapter, bool) {
			ad, ok := byPlatform[p]
			return ad, ok
		},
		SessionThread: func(ctx context.Context, sid string) (bot.Thread, error) {
			info, err := a.db.Session(ctx, sid)
			return info.Thread, err
		},
		Admins: cfg.Access.Admins,
		Expiry: expiry,
		OnDecidedWithoutWaiter: func(ctx context.Context, rec bot.ApprovalRecord) {
			if err := router.ResumeApproval(ctx, rec); err != nil {
				logger.Error("resume approval", "approval", rec.ID, "err", err)
			}
		},
		Logger: logger,
	})
	if err != nil {
		return err
	}
	// Chat platforms approve with buttons; the runner asks them.
	a.runner.Approver = approvals
	router = bot.NewRouter(bot.RouterConfig{
		Sessions: a.db, Inbox: a.db, KV: a.db, Runner: a.runner, Commands: a.bot,
		Access: access(cfg.Access),
		Reply: func(ctx context.Context, ad bot.Adapter, key, sid string, t bot.Thread, u bot.User, replyTo string) (bot.Reply, error) {
			w, err := deliveries[ad.Platform()].Begin(ctx, key, sid, t, u, replyTo)
			if err != nil {
				return nil, err // not a typed nil inside the interface
			}
			return w, nil
		},
		Actions:       approvals,
		MaxConcurrent: cfg.LLM.MaxConcurrent,
		Logger:        logger,
		Status:        status{a},
	}, adapters...)

	if err := approvals.ExpireDue(ctx); err != nil {
		logger.Warn("expire approvals", "err", err)
	}
	if err := approvals.Recover(ctx, time.Now().Add(-expiry-time.Hour)); err != nil {
		logger.Warn("recover approvals", "err", err)
	}
	go func() {
		t := time.NewTicker(expirySweep)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := approvals.ExpireDue(ctx); err != nil {
					logger.Warn("expire approvals", "err", err)
				}
			}
		}
	}()
	logger.Info("parley is running", "platforms", strings.Join(cfg.EnabledPlatforms(), ","), "model", cfg.LLM.Model)
	if web == nil {
		return router.Run(ctx)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		err := web.Serve(rctx)
		if err != nil {
			cancel()
		}
		served <- err
	}()
	err = router.Run(rctx)
	cancel()
	if serr := <-served; serr != nil {
		return serr
	}
	return err
}

// access turns the config's allow lists into the router's policy.
func access(c config.Access) bot.Access {
	list := func(l config.AllowList) bot.AccessList {
		return bot.AccessList{AllowUsers: l.AllowUsers, AllowChats: l.AllowChats, FreeChats: l.FreeChats}
	}
	return bot.Access{
		Platforms: map[string]bot.AccessList{
			config.PlatformSlack:    list(c.Slack),
			config.PlatformTelegram: list(c.Telegram),
			config.PlatformDiscord:  list(c.Discord),
		},
		Admins: c.Admins,
	}
}

// status answers /status from the config and the store.
type status struct{ a *app }

func (s status) Model() string { return s.a.cfg.LLM.Model }

func (s status) SessionStarted(ctx context.Context, sid string) (time.Time, error) {
	info, err := s.a.db.Session(ctx, sid)
	return info.CreatedAt, err
}

func (s status) PendingApprovals(ctx context.Context, sid string) (int, error) {
	recs, err := s.a.db.SessionApprovals(ctx, sid)
	n := 0
	for _, r := range recs {
		if r.Status == bot.ApprovalPending {
			n++
		}
	}
	return n, err
}
