package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
)

// platform is chat.Thread.Platform and chat.User.Platform for Discord.
const platform = "discord"

// DefaultAPIURL is Discord's REST API; proxies and tests use another.
const DefaultAPIURL = "https://discord.com/api/v9"

// Intents the adapter identifies with
// (docs/platforms.md#discord-gateway-and-intents). MessageContent
// is privileged: without it guild messages arrive empty (content.go).
const Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages |
	discordgo.IntentsDirectMessages | discordgo.IntentsMessageContent

// Sizes of the adapter's memories (bounded caches). A few thousand entries
// cover the conversations of a busy bot for hours at a few hundred KB.
const (
	rememberMessages = 4096
	rememberChannels = 2048
)

// Config configures the adapter.
type Config struct {
	Token string // the bot token, without "Bot "
	// APIURL is the REST base (discord.api_url); empty means DefaultAPIURL.
	// Gateway discovery goes there too.
	APIURL string
	// GuildID, when set, registers the slash commands in that guild only
	// (instant; for development), else globally (propagation is slow).
	GuildID string
	// HTTPClient's transport carries every REST call, wrapped by Rewrite;
	// nil means http.DefaultClient.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// State, when set, keeps the newest message handled per channel, so
	// that a start recovers what was sent while Parley was stopped
	// (seen.go); the gateway replays nothing to a new process.
	State chat.PlatformState
	// Shards is how many gateway shards the bot's events are split into
	// (discord.shards; Discord requires sharding from 2,500 guilds on);
	// 0 means 1, up to MaxShards.
	Shards int
	// Now and Sleep are the clock (defaults: time.Now and a real timer).
	// Every wait goes through Sleep (the gateway's reconnect backoff, a
	// recovery's rate limit), so tests can drive time.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Adapter is Parley on Discord. It translates and nothing else
// (docs/architecture.md, Packages): pacing, sessions and approvals are the
// core's.
type Adapter struct {
	cfg Config
	// s carries every REST call, and is shard 0's gateway session.
	s *discordgo.Session
	// shards are the gateway connections, one per shard (shards.go).
	shards []*gatewayShard
	// recovering lets one recovery run at a time, of any shard: a second
	// lost session waits for the first.
	recovering chan struct{}
	// identifying paces the shards' IDENTIFYs (shards.go), and startGate,
	// with replicas, those of every replica.
	identifying  sync.Mutex
	lastIdentify time.Time
	startGate    atomic.Pointer[func(context.Context, time.Duration) error]
	log          *slog.Logger
	now          func() time.Time
	sleep        func(ctx context.Context, d time.Duration) error
	// sweep paces the forgetting of idle rate-limit buckets (buckets.go).
	sweep bucketSweeper

	// msgs remembers recent messages (thread names, reply chains);
	// chans what channels are (threads and their parents); modes where
	// each guild conversation is answered (threads.go).
	msgs    *adapterkit.Cache[string, seenMessage]
	chans   *adapterkit.Cache[string, chanInfo]
	modes   *adapterkit.Cache[string, replyMode]
	warned  *adapterkit.Cache[string, struct{}]
	opening keyLock
	// active holds the newest message seen per channel, for the recovery
	// after a lost session (backfill.go).
	active *adapterkit.Cache[string, activeChannel]
	// seen decides what is saved of active in cfg.State (seen.go).
	seen *seenTracker
	// fileHosts are where FetchFile downloads attachments from: Discord's
	// CDN and the configured API host (files.go).
	fileHosts adapterkit.Hosts
}

// self is who the bot is.
type self struct {
	UserID string
	AppID  string
}

var _ chat.Adapter = (*Adapter)(nil)

// New checks cfg and builds the adapter; it makes no network call.
func New(cfg Config) (*Adapter, error) {
	if cfg.Token == "" {
		return nil, errors.New("discord: the bot token (discord.token) is missing")
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	rw, err := NewRewrite(cfg.APIURL)
	if err != nil {
		return nil, fmt.Errorf("discord: %w", err)
	}
	hosts, err := adapterkit.NewHosts(cfg.APIURL, cdnHost, mediaHost)
	if err != nil {
		return nil, fmt.Errorf("discord: %w", err)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Shards == 0 {
		cfg.Shards = 1
	}
	if cfg.Shards < 1 || cfg.Shards > MaxShards {
		return nil, fmt.Errorf("discord: %d shards (discord.shards); want 1 to %d", cfg.Shards, MaxShards)
	}
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	rw.Next = cfg.HTTPClient.Transport
	client := *cfg.HTTPClient
	client.Transport = rw
	if client.Timeout == 0 {
		client.Timeout = 20 * time.Second
	}

	shards := make([]*gatewayShard, cfg.Shards)
	for i := range shards {
		s, err := newSession(cfg.Token, &client)
		if err != nil {
			return nil, fmt.Errorf("discord: %w", err)
		}
		s.ShardID, s.ShardCount = i, cfg.Shards
		shards[i] = &gatewayShard{id: i, s: s}
	}

	return &Adapter{
		cfg:        cfg,
		s:          shards[0].s,
		shards:     shards,
		recovering: make(chan struct{}, 1),
		log:        cfg.Logger.With("platform", platform),
		now:        cfg.Now,
		sleep:      cfg.Sleep,
		msgs:       adapterkit.NewCache[string, seenMessage](rememberMessages),
		chans:      adapterkit.NewCache[string, chanInfo](rememberChannels),
		modes:      adapterkit.NewCache[string, replyMode](rememberMessages),
		warned:     adapterkit.NewCache[string, struct{}](rememberChannels),
		active:     adapterkit.NewCache[string, activeChannel](rememberChannels),
		seen:       newSeenTracker(),
		// Attachments are fetched past Rewrite, which would send a CDN
		// URL to the API host.
		fileHosts: hosts,
	}, nil
}

// newSession is a discordgo session as the adapter uses it, for REST and
// one gateway shard.
func newSession(token string, client *http.Client) (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, err
	}
	s.Client = client
	s.Identify.Intents = Intents
	// A 429 must reach the core at once (it paces and coalesces), and a
	// repeated POST after a 502 could post an answer twice.
	s.ShouldRetryOnRateLimit = false
	s.MaxRestRetries = 0
	// Handlers run on the gateway's reader, in the order of events, and
	// start their own goroutines (run.go): a READY must see every message
	// of the session before it, and none of the session after it.
	s.SyncEvents = true
	// discordgo logs to the standard logger; the adapter logs what matters.
	s.LogLevel = discordgo.LogError
	return s, nil
}

// Platform is "discord".
func (a *Adapter) Platform() string { return platform }

// Capabilities describe Discord (docs/platforms.md#discord-rate-limits,
// docs/platforms.md#discord-text-limits).
func (a *Adapter) Capabilities() chat.Capabilities {
	return chat.Capabilities{
		MaxLen:  maxLen,
		SplitAt: splitAt,
		Measure: format.MeasureDiscord,
		// Channel edits are commonly ~5 per 5 s per channel; a little
		// under one a second leaves room for the other calls there.
		EditEvery:   1100 * time.Millisecond,
		EditBurst:   2,
		EditScope:   chat.PacePerChat,
		Buttons:     true,
		Ephemeral:   true,
		Typing:      true,
		TypingLasts: 10 * time.Second, // POST /channels/{id}/typing
	}
}

// Send posts out in t: in its thread, opening it on the first answer
// (threads.go), or in the DM channel.
func (a *Adapter) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	r, err := renderOut(out)
	if err != nil {
		return chat.MessageRef{}, err
	}
	dest, err := a.destination(ctx, t, true)
	if err != nil {
		return chat.MessageRef{}, err
	}
	m, err := a.createMessage(ctx, dest.channel, &discordgo.MessageSend{
		Content:         r.content,
		Components:      r.components,
		AllowedMentions: r.allowed,
		Reference:       dest.reference,
		Flags:           noEmbeds,
	}, out.Key)
	if err != nil {
		return chat.MessageRef{}, wrap("POST /channels/{id}/messages", err)
	}
	a.msgs.Put(m.ID, seenMessage{root: t.ID, byBot: true})
	a.sentIn(ctx, dest.channel, t.Space, m.ID)
	return chat.MessageRef{Thread: t, ID: m.ID}, nil
}

// sentIn records the bot's own new message as the newest its channel has
// seen, at once rather than when the gateway echoes it: a thread the bot
// just opened is then recovered after a restart even if Parley stopped
// before the echo came, and the echo itself changes nothing.
//
// A channel seen before is left to the echo. Moved here, before a new
// process's first READY (a reminder that fell due while Parley was
// stopped is posted as it starts), its cursor would pass what people
// wrote in it meanwhile, which the restart's recovery would then miss.
func (a *Adapter) sentIn(ctx context.Context, channel, guild, id string) {
	if _, known := a.active.Get(channel); known {
		return
	}
	a.noteSeen(&discordgo.Message{ID: id, ChannelID: channel, GuildID: guild})
	a.beginSeen(channel, id)
	a.endSeen(ctx, channel, guild, id)
}

// Edit replaces the text and buttons of a message the bot sent.
// Components are always sent, empty without buttons: Discord keeps the
// old ones otherwise, and a decided approval must lose them.
func (a *Adapter) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	if ref.ID == "" {
		return errors.New("discord: edit of a message without an id")
	}
	r, err := renderOut(out)
	if err != nil {
		return err
	}
	dest, err := a.destination(ctx, ref.Thread, false)
	if err != nil {
		return err
	}
	edit := func(channel string) error {
		components := r.components
		if components == nil {
			components = []discordgo.MessageComponent{}
		}
		_, err := a.s.ChannelMessageEditComplex(&discordgo.MessageEdit{
			ID:              ref.ID,
			Channel:         channel,
			Content:         &r.content,
			Components:      &components,
			AllowedMentions: r.allowed,
			Flags:           noEmbeds,
		}, a.callOpts(ctx)...)
		return wrap("PATCH /channels/{id}/messages/{id}", err)
	}
	err = edit(dest.channel)
	if dest.guessed && isUnknown(err) {
		// After a restart the adapter no longer knows whether this
		// conversation got a thread or inline replies: the thread was
		// tried first, so the message is in the parent channel.
		a.modes.Put(ref.Thread.ID, inlineReplies)
		return edit(ref.Thread.Chat)
	}
	return err
}

// SendPrivate shows out to u alone. Outside an interaction Discord has no
// ephemeral messages, so it goes by direct message (commands typed as
// text, "not allowed" answers without a click to answer).
func (a *Adapter) SendPrivate(ctx context.Context, _ chat.Thread, u chat.User, out chat.Out) error {
	if u.ID == "" {
		return errors.New("discord: private message without a user")
	}
	r, err := renderOut(out)
	if err != nil {
		return err
	}
	dm, err := a.s.UserChannelCreate(u.ID, a.callOpts(ctx)...)
	if err != nil {
		return wrap("POST /users/@me/channels", err)
	}
	a.noteDM(dm.ID, u.ID)
	_, err = a.s.ChannelMessageSendComplex(dm.ID, &discordgo.MessageSend{
		Content:         r.content,
		Components:      r.components,
		AllowedMentions: r.allowed,
		Flags:           noEmbeds,
	}, a.callOpts(ctx)...)
	return wrap("POST /channels/{id}/messages", err)
}

// Typing shows "Parley is typing…" for ~10 s where the answer will appear,
// opening the conversation's thread first when needed.
func (a *Adapter) Typing(ctx context.Context, t chat.Thread) error {
	dest, err := a.destination(ctx, t, true)
	if err != nil {
		return err
	}
	return wrap("POST /channels/{id}/typing", a.s.ChannelTyping(dest.channel, a.callOpts(ctx)...))
}

// callOpts bind every REST call to ctx, and make a 429 return at once.
func (a *Adapter) callOpts(ctx context.Context) []discordgo.RequestOption {
	a.sweepIfDue()
	return []discordgo.RequestOption{discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false)}
}

// identity is who the bot is, from the last READY of any shard this
// process runs. discordgo stores READY in its state before it reads the
// next event, so every message handler, running in its own goroutine,
// sees it; an adapter-held copy set by a READY handler could lag behind
// the first messages.
func (a *Adapter) identity() self {
	for _, sh := range a.shards {
		if me, ok := identityOf(sh.s); ok {
			return me
		}
	}
	return self{}
}

// identityOf is who the bot is by the state of s, if s had a READY.
func identityOf(s *discordgo.Session) (self, bool) {
	s.State.RLock()
	defer s.State.RUnlock()
	u := s.State.User
	if u == nil {
		return self{}, false
	}
	me := self{UserID: u.ID, AppID: u.ID} // a bot's application id is its user id
	if app := s.State.Application; app != nil && app.ID != "" {
		me.AppID = app.ID
	}
	return me, true
}
