package telegramtest

// Option configures a Server.
type Option func(*options)

type options struct {
	token       string
	botID       int64
	botUsername string
	botName     string
	rateLimits  bool
	seed        int64
	observe     func(Call)
}

func defaultOptions() options {
	return options{
		token:       "123456:TEST-token",
		botID:       1000,
		botUsername: "parley_bot",
		botName:     "Parley",
		rateLimits:  true,
		seed:        1,
	}
}

// WithToken sets the bot token the fake accepts in /bot<token>/<method>.
func WithToken(token string) Option {
	return func(o *options) { o.token = token }
}

// WithBot sets the bot's user id and username (what getMe answers).
func WithBot(id int64, username string) Option {
	return func(o *options) { o.botID, o.botUsername = id, username }
}

// WithoutRateLimits turns off the flood limits; faults injected with
// FailNext, RateLimitNext and Storm still apply.
func WithoutRateLimits() Option {
	return func(o *options) { o.rateLimits = false }
}

// WithSeed seeds the randomness of Storm so a storm is reproducible.
func WithSeed(seed int64) Option {
	return func(o *options) { o.seed = seed }
}

// WithCallObserver has f told of every Bot API call as it is recorded
// (the moment its effect became visible), for a load generator that must
// not poll. f runs with the server's lock held: it must not call the
// server, and should only note the call and return.
func WithCallObserver(f func(Call)) Option {
	return func(o *options) { o.observe = f }
}
