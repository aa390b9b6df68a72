package chat

import (
	"context"
	"net/http"
)

// Platform describes one chat platform to the program that runs Parley:
// everything outside its adapter that differs by platform. Each adapter
// package exports one; cmd/parley keeps the list, and configuration,
// doctor, access, metrics and replicas go over it, so that a platform is
// one package plus one line of that list (docs/architecture.md,
// Platforms).
type Platform struct {
	// Name is the platform everywhere: Thread.Platform and User.Platform,
	// its configuration section and access.<name>, metrics labels.
	Name string
	// Open says whether people may talk to the bot when access.<name>
	// lists nobody: a Slack app is installed into one workspace, whose
	// members are already vetted; a Telegram or Discord bot is reachable
	// by anyone who finds it.
	Open bool
	// Settings returns a new configuration section holding its defaults.
	Settings func() Settings
	// Method names the API method an adapter's request calls, from a
	// fixed vocabulary ("other" for the rest), for metrics labels: never
	// from the URL as it is, which may carry a token.
	Method func(req *http.Request) string
	// IsEdit reports whether method (as Method names it) changes a
	// message already shown: what the edit budget pays for.
	IsEdit func(method string) bool
}

// Settings is one platform's section of the configuration: a pointer to a
// struct whose fields carry mapstructure tags, read from the section named
// after the platform and from PARLEY_<NAME>_<KEY> variables. Fields of
// type secret.Secret are masked wherever the configuration is shown.
type Settings interface {
	// Enabled reports whether the platform is to run.
	Enabled() bool
	// Validate reports each problem of the section to p; a section
	// corrects what is merely spelled loosely (a missing slash) first.
	Validate(p Problems)
	// Check is parley doctor's look at the platform: one cheap
	// authenticated call, and who answered.
	Check(ctx context.Context) (string, error)
	// Receiver names the lease under which one elected replica receives
	// the platform's events when replicas share a store (a long poll, a
	// gateway), or "" when every replica receives (webhooks, sockets the
	// platform balances).
	Receiver() string
	// ServesHTTP reports whether the adapter receives on the HTTP server
	// of http.listen (Slack's HTTP mode, Telegram's webhook).
	ServesHTTP() bool
	// New builds the adapter.
	New(env Env) (Adapter, error)
}

// Problems collects what is wrong with a configuration section, each
// problem under its full key ("discord.shards"). A value that may be a
// secret is never quoted back.
type Problems interface {
	// Add reports a problem: format starts with the key.
	Add(format string, args ...any)
	// Require reports key as missing when value is empty; when says why
	// it is needed ("slack.enabled is true").
	Require(key, value, when string)
	// URL reports value when it is set and not an http(s) URL; want is
	// what one looks like ("http(s)://host[:port][/path]").
	URL(key, value, want string)
}

// AnyURL is what Problems.URL asks for when any http(s) URL will do.
const AnyURL = "http(s)://host[:port][/path]"
