package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/clock"
)

const platform = "telegram"

// Modes of receiving updates (docs/platforms.md#telegram-receiving): they
// are exclusive on Telegram's side, a set webhook makes getUpdates fail with
// 409.
const (
	ModePolling = "polling"
	ModeWebhook = "webhook"
)

// Defaults for the Config fields left empty.
const (
	DefaultAPIURL      = "https://api.telegram.org"
	DefaultListen      = "127.0.0.1:8080"
	DefaultPollTimeout = 30 * time.Second
)

// Limits of the Bot API (docs/platforms.md#telegram-text-limits,
// docs/platforms.md#telegram-buttons).
const (
	maxLen      = 4096 // characters after entity parsing, counted in UTF-16
	splitAt     = 3900
	maxAlertLen = 200 // answerCallbackQuery text
)

// Config configures the adapter.
type Config struct {
	Token string // from @BotFather
	// APIURL is the Bot API base (a local Bot API server, a fake); empty
	// means DefaultAPIURL.
	APIURL string
	Mode   string // ModePolling (default) or ModeWebhook
	// WebhookURL is the public https URL Telegram posts updates to; its
	// path is the path served on Listen.
	WebhookURL string
	// WebhookSecret is checked against X-Telegram-Bot-Api-Secret-Token;
	// empty means a random one for each Run.
	WebhookSecret string
	Listen        string // webhook mode's host:port; empty means DefaultListen
	// Mux, when set, is where webhook mode registers its handler instead
	// of serving Listen itself: a server shared with other adapters
	// (inbound.Server), which its owner serves.
	Mux chat.Mux
	// State keeps what must survive a restart: the poll offset, the
	// reply chains of groups without topics, groups' migrations.
	// Required.
	State chat.PlatformState
	// PollTimeout is getUpdates' long-poll timeout; zero means
	// DefaultPollTimeout.
	PollTimeout time.Duration
	HTTPClient  *http.Client // nil means http.DefaultClient
	Logger      *slog.Logger
	// Now and Sleep are the clock (defaults: time.Now and a real timer).
	// Every wait goes through Sleep (retries, the daily sweep of reply
	// chains), so tests can drive time.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Adapter is Parley on Telegram. It translates and nothing else: pacing,
// sessions and approvals are the core's.
type Adapter struct {
	cfg   Config
	api   *tgbotapi.BotAPI // never used directly: call binds a copy to a context
	http  *http.Client
	log   *slog.Logger
	state chat.PlatformState
	now   func() time.Time
	// sleep is Config.Sleep; tests replace it so retries never wait.
	sleep func(ctx context.Context, d time.Duration) error
	me    adapterkit.Self[tgbotapi.User] // asked of getMe by the first Run
	// migrated caches group → supergroup ids (migrate.go), "" for a chat
	// known not to have moved; what falls out is read from State again.
	migrated *adapterkit.Cache[string, string]

	// fileHosts is the Bot API's own host, the only one FetchFile
	// sends the token to (its file URLs carry it in the path).
	fileHosts adapterkit.Hosts

	chains chainSends // sends into reply chains not recorded yet

	mu      sync.Mutex
	webhook *webhookRun // set while Run serves a webhook
	// unhooked is the webhook's removal Prepare started, closed once
	// Telegram answered; Run takes it (nil: Run starts its own).
	unhooked <-chan struct{}

	// connected is Connected: Run is receiving (ready.go).
	connected atomic.Bool
}

// rememberMigrations bounds the migration cache: the groups the bot
// talks in now.
const rememberMigrations = 4096

var (
	_ chat.Adapter       = (*Adapter)(nil)
	_ chat.PrivateLinker = (*Adapter)(nil)
	_ chat.MemberChecker = (*Adapter)(nil)
)

// New checks cfg and builds the adapter; it makes no network call.
func New(cfg Config) (*Adapter, error) {
	if cfg.Token == "" {
		return nil, errors.New("telegram: the bot token (telegram.token, from @BotFather) is missing")
	}
	if strings.ContainsAny(cfg.Token, "/?#% ") {
		return nil, errors.New("telegram: the bot token (telegram.token) is malformed: it looks like 123456:ABC-def…")
	}
	if cfg.State == nil {
		return nil, errors.New("telegram: no State to keep the poll offset and reply chains in")
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	if u, err := url.Parse(cfg.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("telegram: api_url %q is not an http(s) URL", cfg.APIURL)
	}
	switch cfg.Mode {
	case "", ModePolling:
		cfg.Mode = ModePolling
	case ModeWebhook:
		if err := checkWebhookConfig(&cfg); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("telegram: unknown mode %q (want %q or %q)", cfg.Mode, ModePolling, ModeWebhook)
	}
	if cfg.PollTimeout < 0 {
		return nil, fmt.Errorf("telegram: negative poll timeout %v", cfg.PollTimeout)
	}
	if cfg.PollTimeout == 0 {
		cfg.PollTimeout = DefaultPollTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Now, cfg.Sleep = clock.Or(cfg.Now, cfg.Sleep)
	hosts, err := adapterkit.NewHosts(cfg.APIURL)
	if err != nil {
		return nil, fmt.Errorf("telegram: api_url: %w", err)
	}
	// Built by hand: the library's constructors call getMe, and New makes
	// no network call.
	api := &tgbotapi.BotAPI{Token: cfg.Token, Client: cfg.HTTPClient, Buffer: 100}
	api.SetAPIEndpoint(Endpoint(cfg.APIURL))
	return &Adapter{
		cfg:       cfg,
		api:       api,
		http:      cfg.HTTPClient,
		log:       cfg.Logger.With("platform", platform),
		state:     cfg.State,
		now:       cfg.Now,
		sleep:     cfg.Sleep,
		migrated:  adapterkit.NewCache[string, string](rememberMigrations),
		fileHosts: hosts,
	}, nil
}

// Platform is "telegram".
func (a *Adapter) Platform() string { return platform }

// Capabilities describe Telegram (docs/platforms.md#telegram-rate-limits,
// docs/platforms.md#telegram-text-limits).
func (a *Adapter) Capabilities() chat.Capabilities {
	return chat.Capabilities{
		MaxLen:    maxLen,
		SplitAt:   splitAt,
		Measure:   format.MeasureTelegram,
		EditEvery: time.Second,
		EditBurst: 1,
		EditScope: chat.PacePerChat,
		PaceOf:    paceOf,
		// The Bot FAQ's ~30 messages a second across all chats, in
		// bursts of 20 rather than a second's 30: calls in flight when
		// Telegram's bucket is full reach it later than they left ours,
		// and the margin absorbs that.
		Overall:      time.Second / 30,
		OverallBurst: 20,
		Buttons:      true,
		Ephemeral:    false,
		Typing:       true,
		TypingLasts:  5 * time.Second, // sendChatAction: "5 seconds or less"
	}
}

// paceOf budgets edits by kind of chat: groups (negative ids) allow about
// 20 messages a minute, private chats about one a second. Short bursts
// pass (Bots FAQ); a burst of two is what lets streaming frames, which
// leave a bucket's last token to finals (outbound.Pacer.WaitFrame), stream at
// the chat's rate while the final answer goes out the moment it is ready.
// A private chat takes three in a burst, as the fakes model it: someone
// trading short answers with the bot gets one every ~0.4 s, and with two
// the third answer in a row waited out the chat's second
// (docs/footprint.md#throughput).
func paceOf(t chat.Thread) (time.Duration, int) {
	if strings.HasPrefix(t.Chat, "-") {
		return 3 * time.Second, 2
	}
	return time.Second, 3
}

// self is the bot as getMe described it; zero before Run.
func (a *Adapter) self() tgbotapi.User { return a.me.Get() }
