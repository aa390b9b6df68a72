package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/backoff"
)

// Reconnect backoff while the gateway cannot be reached at all; once
// connected, discordgo reconnects and resumes by itself.
const (
	openRetryFirst = time.Second
	openRetryMax   = 30 * time.Second
)

// Gateway close codes that no retry can fix (Discord docs, Gateway close
// event codes).
const (
	closeAuthFailed        = 4004
	closeDisallowedIntents = 4014
)

// Run connects to the gateway and hands events to h until ctx ends
// (docs/platforms.md#discord-gateway-and-intents), on every shard
// (Config.Shards, shards.go). After shard 0's first READY it registers
// the slash commands (chat.Menu) in Config.GuildID, or globally; a
// failure there is logged, not fatal, since mentions and DMs still work.
//
// Events are handled in goroutines of their own, started in the order
// discordgo reads them; interactions are acknowledged before h sees them
// (the 3 s rule). After a shard's lost session, the messages sent
// meanwhile in its channels are recovered (backfill.go); so are, after
// the first READY, those sent while Parley was stopped, from the
// channels Config.State remembers (seen.go). Run waits for handlers and
// recoveries in flight before it returns, since a handler called after
// Run returned would race the shutdown.
func (a *Adapter) Run(ctx context.Context, h chat.Handler) error {
	// Loaded before connecting, so that no message of this run can be
	// saved in State before the cursors it replaces were read.
	restored := a.loadSeen(ctx) > 0
	if len(a.shards) == 1 {
		return a.runShard(ctx, h, a.shards[0], restored)
	}
	return a.runShards(ctx, h, restored)
}

// runShard receives sh's events until ctx ends; restored tells that
// State's cursors of its channels were loaded, to recover after the
// first READY.
func (a *Adapter) runShard(ctx context.Context, h chat.Handler, sh *gatewayShard, restored bool) error {
	if !sh.running.CompareAndSwap(false, true) {
		return fmt.Errorf("discord: shard %d is running already", sh.id)
	}
	defer sh.running.Store(false)
	log := a.log
	if len(a.shards) > 1 {
		log = log.With("shard", sh.id)
	}
	var (
		mu      sync.Mutex
		readies int
	)
	// Handlers run in goroutines of the group, which runShard stops
	// before it returns. The handlers below run on discordgo's reader
	// (SyncEvents), which must not wait on them.
	var handlers adapterkit.Group
	remove := []func(){
		sh.s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
			sh.connected.Store(true)
			mu.Lock()
			readies++
			n := readies
			mu.Unlock()
			if n == 1 && !restored {
				return
			}
			// The snapshot is taken here, before the reader goes on to
			// the new session's messages.
			active := a.activeOf(sh.id)
			fill := a.recoverGap
			if n == 1 {
				// A new process: the gateway replays nothing to it.
				fill = a.recoverRestart
				log.Info("recovering messages sent while Parley was stopped", "channels", len(active))
			} else {
				// discordgo v0.29.0 resumes against the original URL, so
				// a lost session comes back as a fresh READY, and
				// dispatches sent in the gap are never sent again
				// (docs/platforms.md#discord-gateway-and-intents).
				log.Warn("gateway session was lost and identified afresh; recovering messages sent meanwhile",
					"session", r.SessionID, "channels", len(active))
			}
			if len(active) == 0 {
				return
			}
			for _, e := range active {
				a.beginSeen(e.Key, e.Val.lastID)
			}
			handlers.Go(ctx, func() {
				select {
				case a.recovering <- struct{}{}:
				case <-ctx.Done():
					return
				}
				defer func() { <-a.recovering }()
				fill(ctx, h, active)
			})
		}),
		sh.s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Resumed) {
			sh.connected.Store(true)
			log.Info("gateway session resumed")
		}),
		sh.s.AddHandler(func(_ *discordgo.Session, _ *discordgo.Disconnect) { sh.connected.Store(false) }),
		sh.s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) {
			if m.Message == nil {
				return
			}
			a.noteSeen(m.Message)
			a.beginSeen(m.ChannelID, m.ID)
			handlers.Go(ctx, func() { a.handleMessage(ctx, h, m.Message) })
		}),
		sh.s.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) {
			handlers.Go(ctx, func() { a.onInteraction(ctx, h, i.Interaction) })
		}),
	}
	defer func() {
		for _, r := range remove {
			r()
		}
	}()

	if err := a.openShard(ctx, sh); err != nil {
		return err
	}
	if sh.id == 0 {
		// Once, not once per shard: the commands are the application's.
		me := a.identity()
		log.Info("connected to Discord", "bot", me.UserID)
		a.registerCommands(ctx, me.AppID)
	} else {
		log.Info("connected to Discord")
	}

	<-ctx.Done()
	sh.connected.Store(false)
	// discordgo's reader and heartbeat goroutines reconnect when the
	// socket they use fails, which the close below makes happen; under
	// the session lock they read this after it is set.
	sh.s.Lock()
	sh.s.ShouldReconnectOnError = false
	sh.s.Unlock()
	if err := sh.s.Close(); err != nil {
		log.Debug("closing the gateway", "err", err)
	}
	handlers.Stop()
	return ctx.Err()
}

// open connects to the gateway, retrying with backoff while Discord is
// unreachable, and failing at once where retrying cannot help.
func (a *Adapter) open(ctx context.Context, s *discordgo.Session) error {
	// Not jittered: one process retries, alone.
	retry := backoff.Policy{Base: openRetryFirst, Cap: openRetryMax}
	for failures := 0; ; failures++ {
		err := s.Open()
		if err == nil {
			return nil
		}
		if ce, ok := errors.AsType[*websocket.CloseError](err); ok {
			switch ce.Code {
			case closeAuthFailed:
				return fmt.Errorf("discord gateway: %w (%w)", ErrAuth, err)
			case closeDisallowedIntents:
				return fmt.Errorf("discord gateway: the Message Content intent is not enabled for this bot; "+
					"enable it in the Developer Portal (Bot → Privileged Gateway Intents): %w", err)
			}
		}
		if _, status := restCode(err); status == http.StatusUnauthorized {
			return fmt.Errorf("discord GET /gateway: %w (%w)", ErrAuth, err)
		}
		wait := retry.Delay(failures)
		a.log.Warn("cannot reach the Discord gateway; retrying", "in", wait, "err", err)
		if err := a.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// registerCommands overwrites the slash commands with chat.Menu(): the
// call is idempotent, so every start may make it.
func (a *Adapter) registerCommands(ctx context.Context, appID string) {
	if appID == "" {
		a.log.Warn("slash commands not registered: READY named no application")
		return
	}
	_, err := a.s.ApplicationCommandBulkOverwrite(appID, a.cfg.GuildID, appCommands(), a.callOpts(ctx)...)
	if err != nil {
		a.log.Warn("slash commands not registered; mentions and DMs still work",
			"guild", a.cfg.GuildID, "err", wrap("PUT /applications/{id}/commands", err))
	}
}

// handleMessage hands m to h, then lets its channel's cursor pass it. A
// handling cut short by the shutdown keeps the cursor before m, so that
// the next start reads m again.
func (a *Adapter) handleMessage(ctx context.Context, h chat.Handler, m *discordgo.Message) {
	if err := a.onMessage(ctx, h, m); err != nil && ctx.Err() != nil {
		return
	}
	a.endSeen(ctx, m.ChannelID, m.GuildID, m.ID)
}

// onMessage hands m to h unless normalize drops it, and returns h's error.
func (a *Adapter) onMessage(ctx context.Context, h chat.Handler, m *discordgo.Message) error {
	msg, ok := a.normalize(ctx, m)
	if !ok {
		return nil
	}
	err := h.HandleMessage(ctx, msg)
	if err != nil {
		a.log.Error("handling a message", "key", msg.Key, "err", err)
	}
	return err
}

func (a *Adapter) onInteraction(ctx context.Context, h chat.Handler, in *discordgo.Interaction) {
	if in == nil || in.ID == "" {
		return
	}
	switch in.Type {
	case discordgo.InteractionMessageComponent:
		a.click(ctx, h, in)
	case discordgo.InteractionApplicationCommand:
		a.command(ctx, h, in)
	}
}
