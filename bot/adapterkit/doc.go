// Package adapterkit is the machinery every platform adapter (Slack,
// Telegram, Discord) needs and none should write again: a group that runs
// handlers and lets Run wait for them (Group), a bounded cache for what
// an adapter remembers of recent traffic (Cache), the bot's own
// identity, asked of the platform once (Self), and downloads of attached
// files from the platform's own hosts only (Hosts, Get).
//
// The contracts adapters share with the core and the store (chat.Mux,
// chat.PlatformState, chat.ErrAuth) are in package bot; retry waits are in
// internal/backoff.
package adapterkit
