package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
)

// Modes of receiving events.
const (
	ModeSocket = "socket" // Socket Mode: an outbound websocket, needs the app-level token
	ModeHTTP   = "http"   // the HTTP Events API, signed with the signing secret (http.go)
)

// DefaultListen is where HTTP mode listens when Config.Listen is empty,
// the http.listen default: behind a reverse proxy that terminates TLS.
const DefaultListen = "127.0.0.1:8080"

// DefaultAPIURL is Slack's Web API; GovSlack and tests use another.
const DefaultAPIURL = "https://slack.com/api/"

// Config configures the adapter.
type Config struct {
	BotToken string // xoxb-…
	AppToken string // xapp-…, for Socket Mode
	// APIURL is the Web API base; slack-go appends the method name, so it
	// ends in "/" (added when missing). Empty means DefaultAPIURL.
	APIURL        string
	Mode          string // ModeSocket (default) or ModeHTTP
	SigningSecret string // HTTP mode
	// Listen is http.listen, the host:port HTTP mode serves on; empty
	// means DefaultListen.
	Listen string
	// Mux, when set, is where HTTP mode registers its endpoints instead:
	// a server shared with other adapters (inbound.Server), which its
	// owner serves.
	Mux chat.Mux
	// HTTPClient makes every Web API and response_url call; nil means
	// http.DefaultClient.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Now and Sleep are the clock of the adapter's own budgets (users.info);
	// defaults: time.Now and a real timer.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Adapter is Parley on Slack. It translates and nothing else
// (docs/architecture.md, Packages): pacing, sessions and approvals are the
// core's.
type Adapter struct {
	cfg   Config
	api   *slack.Client
	http  *http.Client
	log   *slog.Logger
	users *userProfiles
	// usersPace paces users.info (users.go).
	usersPace *outbound.Pacer
	// untitled are assistant threads started but not titled yet.
	untitled *untitledThreads

	me adapterkit.Self[self] // asked of auth.test by the first Run
	// fileHosts are where FetchFile sends the bot token: Slack's file
	// host and the configured API host (files.go).
	fileHosts adapterkit.Hosts

	// connected is Connected: Run is receiving (ready.go).
	connected atomic.Bool

	// membersPage is the conversations.members page size; 0 means
	// membersPage (members.go). Tests page with less.
	membersPage int
}

var _ chat.Adapter = (*Adapter)(nil)

// editEvery paces chat.update: Tier 3 allows ~50 calls a minute for the
// whole workspace, so one edit per 1.2 s per workspace stays inside it.
const editEvery = 1200 * time.Millisecond

// typingStatus is the assistant status shown while an answer is written.
const typingStatus = "is thinking…"

// New checks cfg and builds the adapter; it makes no network call.
func New(cfg Config) (*Adapter, error) {
	if cfg.BotToken == "" {
		return nil, errors.New("slack: the bot token (slack.bot_token, xoxb-…) is missing")
	}
	switch cfg.Mode {
	case "", ModeSocket:
		cfg.Mode = ModeSocket
		if cfg.AppToken == "" {
			return nil, errors.New("slack: Socket Mode needs the app-level token (slack.app_token, xapp-… with connections:write)")
		}
	case ModeHTTP:
		if cfg.SigningSecret == "" {
			return nil, errors.New("slack: HTTP mode needs the signing secret (slack.signing_secret, from the app's Basic Information page)")
		}
		if cfg.Listen == "" {
			cfg.Listen = DefaultListen
		}
	default:
		return nil, fmt.Errorf("slack: unknown mode %q (want %q or %q)", cfg.Mode, ModeSocket, ModeHTTP)
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	if !strings.HasSuffix(cfg.APIURL, "/") {
		cfg.APIURL += "/"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	hosts, err := adapterkit.NewHosts(cfg.APIURL, slackFileHost)
	if err != nil {
		return nil, fmt.Errorf("slack: api_url: %w", err)
	}
	a := &Adapter{
		cfg:       cfg,
		http:      cfg.HTTPClient,
		untitled:  newUntitledThreads(maxUntitled),
		log:       cfg.Logger.With("platform", platform),
		fileHosts: hosts,
		// Built-in retries stay off (the default): they would sleep inside
		// the call, and delivery must see a 429 at once to coalesce frames.
		api: slack.New(cfg.BotToken,
			slack.OptionAPIURL(cfg.APIURL),
			slack.OptionAppLevelToken(cfg.AppToken),
			slack.OptionHTTPClient(cfg.HTTPClient)),
	}
	a.usersPace = newUsersPace(cfg.Now, cfg.Sleep)
	a.users = newUserProfiles(a.lookupProfile)
	return a, nil
}

// Platform is "slack".
func (a *Adapter) Platform() string { return platform }

// Capabilities describe Slack (docs/platforms.md#slack-rate-limits,
// docs/platforms.md#slack-text-limits).
func (a *Adapter) Capabilities() chat.Capabilities {
	return chat.Capabilities{
		MaxLen:    maxLen,
		SplitAt:   splitAt,
		Measure:   format.MeasureSlack,
		EditEvery: editEvery,
		// Tier limits tolerate short bursts; 3 lets a fresh reply's first
		// edits through without waiting while the long-run rate holds.
		EditBurst: 3,
		EditScope: chat.PacePerWorkspace,
		// chat.postMessage is limited per channel, about one a second
		// with short bursts, not from chat.update's workspace budget.
		PostEvery: time.Second,
		PostBurst: 3,
		Buttons:   true,
		Ephemeral: true,
		Typing:    true,
	}
}

// Send posts out in t, in the thread when t has one. Link unfurls are
// off: a model citing five URLs must not drown its answer in previews.
func (a *Adapter) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	if err := checkThread(t); err != nil {
		return chat.MessageRef{}, err
	}
	r, err := renderOut(out)
	if err != nil {
		return chat.MessageRef{}, err
	}
	opts := append([]slack.MsgOption{slack.MsgOptionText(r.text, false)}, noUnfurls()...)
	if len(r.blocks) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(r.blocks...))
	}
	if t.ID != "" {
		opts = append(opts, slack.MsgOptionTS(t.ID))
	}
	opts = append(opts, keyMetadata(out.Key)...)
	_, ts, err := a.api.PostMessageContext(ctx, t.Chat, opts...)
	if err != nil {
		return chat.MessageRef{}, wrap("chat.postMessage", err)
	}
	return chat.MessageRef{Thread: t, ID: ts}, nil
}

// Edit replaces the message's text and buttons. Blocks are always sent,
// empty when out has no buttons: chat.update keeps the old blocks unless
// told otherwise, and a decided approval must lose its buttons.
func (a *Adapter) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	if err := checkThread(ref.Thread); err != nil {
		return err
	}
	if ref.ID == "" {
		return errors.New("slack: edit of a message without a ts")
	}
	r, err := renderOut(out)
	if err != nil {
		return err
	}
	_, _, _, err = a.api.UpdateMessageContext(ctx, ref.Thread.Chat, ref.ID,
		slack.MsgOptionText(r.text, false), slack.MsgOptionBlocks(r.blocks...))
	return wrap("chat.update", err)
}

// SendPrivate shows out to u alone, as an ephemeral message in t.
func (a *Adapter) SendPrivate(ctx context.Context, t chat.Thread, u chat.User, out chat.Out) error {
	if err := checkThread(t); err != nil {
		return err
	}
	return a.postEphemeral(ctx, t.Chat, t.ID, u.ID, out)
}

// postEphemeral is chat.postEphemeral in channel (and thread, if set).
func (a *Adapter) postEphemeral(ctx context.Context, channel, threadTS, user string, out chat.Out) error {
	if user == "" {
		return errors.New("slack: ephemeral message without a user")
	}
	r, err := renderOut(out)
	if err != nil {
		return err
	}
	opts := append([]slack.MsgOption{slack.MsgOptionText(r.text, false)}, noUnfurls()...)
	if len(r.blocks) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(r.blocks...))
	}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	_, err = a.api.PostEphemeralContext(ctx, channel, user, opts...)
	return wrap("chat.postEphemeral", err)
}

// Typing sets the assistant thread status, Slack's only "typing". It is
// a courtesy, so it never fails a reply: a workspace without the AI-app
// features or the scope just shows nothing (the error is logged). A
// conversation without a thread (a DM's main view) has no status to set.
func (a *Adapter) Typing(ctx context.Context, t chat.Thread) error {
	if t.Chat == "" || t.ID == "" {
		return nil
	}
	err := a.api.SetAssistantThreadsStatusContext(ctx, slack.AssistantThreadsSetStatusParameters{
		ChannelID: t.Chat, ThreadTS: t.ID, Status: typingStatus,
	})
	if err != nil {
		a.log.Debug("assistant status not shown", "thread", t.String(), "err", wrap("assistant.threads.setStatus", err))
	}
	return nil
}

// checkThread rejects a thread that cannot name a Slack conversation,
// before a call that would fail less clearly.
func checkThread(t chat.Thread) error {
	if t.Platform != "" && t.Platform != platform {
		return fmt.Errorf("slack: thread %v belongs to another platform", t)
	}
	if t.Chat == "" {
		return fmt.Errorf("slack: thread %v has no channel", t)
	}
	return nil
}

// identity is who the bot is; zero before Run asked Slack.
func (a *Adapter) identity() self { return a.me.Get() }
