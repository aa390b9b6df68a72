package chat

import "errors"

// ErrAuth marks a platform refusing the adapter's token itself (revoked,
// mistyped, the app uninstalled): no retry can help, the operator has to
// fix the configuration. Every adapter's "token refused" error matches it
// under errors.Is, so the core can tell a bad token from an outage
// without knowing the platform.
var ErrAuth = errors.New("the platform refused the token")

// ErrNoPrivateChat marks a private message the platform will not deliver
// until the person opens a private chat with the bot themselves (Telegram:
// bots cannot start one; Discord: the person closed direct messages).
// Every adapter's such error matches it under errors.Is; the core then
// holds the message and tells the person how to open the chat
// (bot/outbound, held.go).
var ErrNoPrivateChat = errors.New("the platform has no private chat with this person yet")

// TokenRefused returns an adapter's "token refused" error. It reads as
// hint, what to check in the platform's own words ("check slack.bot_token
// (xoxb-…)"), so that messages and doctor's output name the right
// setting, and it matches ErrAuth under errors.Is. Adapters build their
// error with it once and wrap that with %w.
func TokenRefused(hint string) error { return tokenRefused(hint) }

// tokenRefused is a string, so that two adapters' errors differ by their
// hint and each is comparable, as a sentinel error must be.
type tokenRefused string

func (e tokenRefused) Error() string { return string(e) }

func (e tokenRefused) Is(target error) bool { return target == ErrAuth }
