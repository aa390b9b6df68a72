// Package bottest is an in-memory chat platform for tests and benchmarks of
// the chat core: an Adapter that keeps every message the bot posted, records
// every call with its time, enforces a platform's length and rate limits
// like the real thing (answering *chat.RateLimitError with a retry-after),
// injects faults (429 storms, 5xx, an error after the message was created)
// and delivers inbound messages, clicks and commands to the Handler given to
// Run.
//
// It speaks chat.Adapter, not a wire protocol: the platform fakes that the
// real SDK clients talk to are slacktest, telegramtest and discordtest.
package bottest
