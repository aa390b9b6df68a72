package discordtest

import "time"

// Option configures a Server.
type Option func(*options)

type options struct {
	token             string
	botID, botName    string
	rateLimits        bool
	limits            map[string]Limit
	global            Limit
	heartbeat         time.Duration
	appFlags          int
	seed              int64
	interactionWindow time.Duration // initial response deadline
	tokenLifetime     time.Duration // follow-up / edit window
	nonceWindow       time.Duration // enforce_nonce's memory
	observe           func(Call)
	requiredShards    int // fewer shards are refused with 4011
}

// Limit is a fixed-window bucket as Discord runs them: Requests per Window,
// all restored at once when the window ends.
type Limit struct {
	Requests int
	Window   time.Duration
}

func (l Limit) off() bool { return l.Requests <= 0 || l.Window <= 0 }

const (
	// appFlagGatewayMessageContentLimited lets an unverified bot use the
	// privileged MESSAGE_CONTENT intent.
	appFlagGatewayMessageContentLimited = 1 << 19
)

func defaultOptions() options {
	return options{
		token:      "test-bot-token",
		botID:      "900000000000000001",
		botName:    "Parley",
		rateLimits: true,
		limits:     defaultLimits(),
		// Discord's global limit: 50 requests per second per bot.
		global:            Limit{Requests: 50, Window: time.Second},
		heartbeat:         41250 * time.Millisecond,
		appFlags:          appFlagGatewayMessageContentLimited,
		seed:              1,
		interactionWindow: 3 * time.Second,
		tokenLifetime:     15 * time.Minute,
		nonceWindow:       defaultNonceWindow,
	}
}

// WithToken sets the bot token; clients authenticate with "Bot <token>".
func WithToken(token string) Option { return func(o *options) { o.token = token } }

// WithBot sets the bot user's id (also the application id) and username.
func WithBot(id, username string) Option {
	return func(o *options) { o.botID, o.botName = id, username }
}

// WithoutRateLimits turns off limit-based 429s; injected ones still happen.
func WithoutRateLimits() Option { return func(o *options) { o.rateLimits = false } }

// WithLimit overrides the bucket of one route ("POST /channels/{id}/messages");
// the zero Limit removes it. Buckets are per route and major parameter.
func WithLimit(route string, l Limit) Option {
	return func(o *options) {
		m := make(map[string]Limit, len(o.limits)+1)
		for k, v := range o.limits {
			m[k] = v
		}
		m[normalizeRoute(route)] = l
		o.limits = m
	}
}

// WithGlobalLimit overrides the per-bot global limit (default 50 per second).
func WithGlobalLimit(l Limit) Option { return func(o *options) { o.global = l } }

// WithHeartbeatInterval sets the heartbeat_interval sent in HELLO (Discord: 41.25 s).
func WithHeartbeatInterval(d time.Duration) Option { return func(o *options) { o.heartbeat = d } }

// WithApplicationFlags sets the application's flags. Without 1<<18 or 1<<19 an
// IDENTIFY asking for MESSAGE_CONTENT is refused, as Discord refuses it.
func WithApplicationFlags(flags int) Option { return func(o *options) { o.appFlags = flags } }

// WithSeed seeds the randomness (Storm, session ids, interaction tokens).
func WithSeed(seed int64) Option { return func(o *options) { o.seed = seed } }

// WithInteractionDeadline sets how long after an INTERACTION_CREATE is
// delivered its initial callback is accepted (Discord: 3 s).
func WithInteractionDeadline(d time.Duration) Option {
	return func(o *options) { o.interactionWindow = d }
}

// WithInteractionTokenLifetime sets how long follow-ups and edits of an
// interaction are accepted (Discord: 15 minutes).
func WithInteractionTokenLifetime(d time.Duration) Option {
	return func(o *options) { o.tokenLifetime = d }
}

// WithCallObserver has f told of every REST call as it is recorded (the
// moment its effect became visible), for a load generator that must not
// poll. f runs with the server's lock held: it must not call the server,
// and should only note the call and return.
func WithCallObserver(f func(Call)) Option {
	return func(o *options) { o.observe = f }
}

// WithRequiredShards makes the bot need n shards, as Discord does once a
// bot is in too many guilds for one: an IDENTIFY with fewer is closed
// with 4011 (sharding required), and GET /gateway/bot recommends n.
func WithRequiredShards(n int) Option { return func(o *options) { o.requiredShards = n } }
