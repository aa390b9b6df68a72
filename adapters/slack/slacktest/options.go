package slacktest

import "time"

// Option configures a Server.
type Option func(*options)

type options struct {
	botToken, appToken string
	teamID, teamName   string
	teamDomain         string
	appID              string
	botUserID, botID   string
	botName            string
	ackTimeout         time.Duration
	maxRetries         int
	pingInterval       time.Duration
	limits             map[string]Limit
	now                func() time.Time
	echoBot            bool
	observe            func(Call)
}

func defaultOptions() options {
	return options{
		botToken:   "xoxb-slacktest",
		appToken:   "xapp-slacktest",
		teamID:     "T0000TEST",
		teamName:   "Slacktest",
		teamDomain: "slacktest",
		appID:      "A0000TEST",
		botUserID:  "U0000BOT",
		botID:      "B0000BOT",
		botName:    "parley",
		// Slack expects an ack within 3 s and then retries, up to 3 times.
		ackTimeout: 3 * time.Second,
		maxRetries: 3,
		// Well under slack-go's default 30 s and under the 1 s tests commonly use.
		pingInterval: 200 * time.Millisecond,
		limits:       defaultLimits(),
		now:          time.Now,
	}
}

// WithTokens sets the bot (xoxb-) and app-level (xapp-) tokens the fake accepts.
func WithTokens(bot, app string) Option {
	return func(o *options) { o.botToken, o.appToken = bot, app }
}

// WithTeam sets the workspace's team id and name.
func WithTeam(id, name string) Option {
	return func(o *options) { o.teamID, o.teamName = id, name }
}

// WithBot sets the bot's user id (U…), bot id (B…) and name.
func WithBot(userID, botID, name string) Option {
	return func(o *options) { o.botUserID, o.botID, o.botName = userID, botID, name }
}

// WithAckTimeout sets how long an envelope may stay unacked before it is
// redelivered with retry_attempt+1 (Slack: 3 s; tests shorten it).
func WithAckTimeout(d time.Duration) Option {
	return func(o *options) { o.ackTimeout = d }
}

// WithMaxRetries sets how many redeliveries an unacked envelope gets (Slack: 3).
func WithMaxRetries(n int) Option {
	return func(o *options) { o.maxRetries = n }
}

// WithPingInterval sets how often the fake sends WebSocket pings. It must be
// shorter than the client's socketmode.OptionPingInterval.
func WithPingInterval(d time.Duration) Option {
	return func(o *options) { o.pingInterval = d }
}

// WithoutRateLimits disables every rate limit (the "off" setting tests want
// when they are not about pacing).
func WithoutRateLimits() Option {
	return func(o *options) { o.limits = map[string]Limit{} }
}

// WithLimit overrides the rate limit of one Web API method; the zero Limit
// means unlimited. Use it for "tight" limits, e.g. Limit{PerMinute: 1, Burst: 1}.
func WithLimit(method string, l Limit) Option {
	return func(o *options) {
		m := make(map[string]Limit, len(o.limits)+1)
		for k, v := range o.limits {
			m[k] = v
		}
		m[method] = l
		o.limits = m
	}
}

// WithClock sets the time source for rate limits and recorded times.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithEchoBotMessages makes the fake deliver a message event (with bot_id)
// for every message the app posts, as real Slack does when the app is
// subscribed to message.* events; adapters must ignore their own messages.
func WithEchoBotMessages() Option {
	return func(o *options) { o.echoBot = true }
}

// WithCallObserver has f told of every Web API call as it is recorded
// (the moment its effect became visible), for a load generator that must
// not poll. f runs with the server's lock held: it must not call the
// server, and should only note the call and return.
func WithCallObserver(f func(Call)) Option {
	return func(o *options) { o.observe = f }
}
