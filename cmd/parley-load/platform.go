package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

const (
	platformTelegram = "telegram"
	platformDiscord  = "discord"
)

// platform is the fake chat service Parley is pointed at. People are
// numbered 0..users-1, each with a direct chat with the bot.
type platform interface {
	// env is the environment that points Parley at the fake and lets the
	// simulated people in.
	env() map[string]string
	// ready returns once Parley is connected and receiving messages.
	ready(ctx context.Context) error
	// post sends text from a person to the bot in their direct chat.
	post(person int, text string)
	// botTexts are the bot's messages in a person's chat as they read
	// them now, oldest first.
	botTexts(person int) []string
	// log hears of every call that changed a person's chat (calls.go).
	log() *callLog
	// rateLimited counts the 429s the fake answered by its limits.
	rateLimited() int
	// calls counts the API calls Parley made.
	calls() int
	Close()
}

// maxListed is how many people an allow list names before it lets
// everyone in: a soak's tens of thousands of ids would overflow an
// environment variable, and the fake has no one else.
const maxListed = 1000

// allowList is the access list letting ids in.
func allowList(ids []string) string {
	if len(ids) > maxListed {
		return "*"
	}
	return strings.Join(ids, ",")
}

// newPlatform starts the fake for users people. replicas is how many
// Parleys will connect: on Slack each opens a Socket Mode connection and
// receives; on Telegram and Discord one elected replica receives.
func newPlatform(name string, users int, limits bool, replicas int) (platform, error) {
	switch name {
	case platformTelegram:
		return newTelegram(users, limits), nil
	case platformDiscord:
		return newDiscord(users, limits), nil
	case platformSlack:
		return newSlack(users, limits, replicas), nil
	}
	return nil, fmt.Errorf("unknown platform %q", name)
}

// telegram is telegramtest with one private chat per person (chat id ==
// user id).
type telegram struct {
	srv     *telegramtest.Server
	ids     []int64
	changes *callLog
}

// firstTelegramUser keeps the simulated ids clear of the fake's bot id.
const firstTelegramUser = 10_001

func newTelegram(users int, limits bool) *telegram {
	t := &telegram{changes: newCallLog()}
	opts := []telegramtest.Option{telegramtest.WithCallObserver(func(c telegramtest.Call) { t.observe(c, users) })}
	if !limits {
		opts = append(opts, telegramtest.WithoutRateLimits())
	}
	t.srv = telegramtest.NewServer(opts...)
	for i := range users {
		id := int64(firstTelegramUser + i)
		t.srv.AddUser(id, "Person "+strconv.Itoa(i), "person"+strconv.Itoa(i))
		t.ids = append(t.ids, id)
	}
	return t
}

func (t *telegram) env() map[string]string {
	ids := make([]string, len(t.ids))
	for i, id := range t.ids {
		ids[i] = strconv.FormatInt(id, 10)
	}
	return map[string]string{
		"PARLEY_TELEGRAM_ENABLED":            "true",
		"PARLEY_TELEGRAM_TOKEN":              t.srv.Token(),
		"PARLEY_TELEGRAM_API_URL":            t.srv.URL,
		"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": allowList(ids),
	}
}

// ready waits for a long poll: from then on updates reach Parley. (A
// getUpdates is recorded as a call only once answered, up to its timeout
// later, so Calls cannot tell.)
func (t *telegram) ready(ctx context.Context) error {
	return t.srv.WaitFor(ctx, t.srv.Polling)
}

func (t *telegram) post(person int, text string) {
	id := t.ids[person]
	t.srv.Post(telegramtest.Incoming{Chat: id, From: id, Text: text})
}

func (t *telegram) botTexts(person int) []string {
	var out []string
	for _, m := range t.srv.BotMessages(t.ids[person]) {
		out = append(out, m.Visible)
	}
	return out
}

// observe tells the log about a call into a person's private chat: a
// draft (sendMessageDraft) is streamed, not a message, and a chat action
// shows nothing that stays.
func (t *telegram) observe(c telegramtest.Call, users int) {
	if c.Status != http.StatusOK {
		return
	}
	id, err := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	person := int(id - firstTelegramUser)
	if err != nil || person < 0 || person >= users {
		return
	}
	edit := c.Method == "editMessageText" || c.Method == "editMessageReplyMarkup" || c.Method == "sendMessageDraft"
	shows := c.Method != "sendChatAction" && c.Method != "sendMessageDraft"
	t.changes.note(person, shows, edit)
}

func (t *telegram) log() *callLog    { return t.changes }
func (t *telegram) rateLimited() int { return t.srv.RateLimited() }
func (t *telegram) calls() int       { return len(t.srv.Calls()) }
func (t *telegram) Close()           { t.srv.Close() }

// discord is discordtest with one DM channel per person, in a world with
// one guild (the bot must be somewhere to register its commands).
type discord struct {
	srv     *discordtest.Server
	ids     []string
	chans   []string
	people  map[string]int // by DM channel; read-only once built
	changes *callLog
}

const (
	discordGuild = "100000000000000001"
	// firstDiscordUser is a snowflake-sized id clear of the fake's bot id.
	firstDiscordUser = 400_000_000_000_000_001
)

func newDiscord(users int, limits bool) *discord {
	d := &discord{people: map[string]int{}, changes: newCallLog()}
	opts := []discordtest.Option{discordtest.WithCallObserver(d.observe)}
	if !limits {
		opts = append(opts, discordtest.WithoutRateLimits())
	}
	d.srv = discordtest.NewServer(opts...)
	d.srv.AddGuild(discordGuild, "parley-load")
	d.srv.AddChannel(discordGuild, "100000000000000002", "general")
	for i := range users {
		id := strconv.Itoa(firstDiscordUser + i)
		d.srv.AddUser(id, "person"+strconv.Itoa(i))
		d.ids = append(d.ids, id)
		d.chans = append(d.chans, d.srv.DMChannel(id))
		d.people[d.chans[i]] = i
	}
	return d
}

func (d *discord) env() map[string]string {
	return map[string]string{
		"PARLEY_DISCORD_ENABLED":            "true",
		"PARLEY_DISCORD_TOKEN":              d.srv.Token(),
		"PARLEY_DISCORD_API_URL":            d.srv.APIURL(),
		"PARLEY_DISCORD_GUILD_ID":           discordGuild,
		"PARLEY_ACCESS_DISCORD_ALLOW_USERS": allowList(d.ids),
	}
}

// ready waits for an identified gateway session: dispatches reach Parley.
func (d *discord) ready(ctx context.Context) error {
	return d.srv.WaitFor(ctx, d.srv.Connected)
}

func (d *discord) post(person int, text string) {
	d.srv.Post(discordtest.Incoming{Channel: d.chans[person], Author: d.ids[person], Content: text})
}

func (d *discord) botTexts(person int) []string {
	var out []string
	for _, m := range d.srv.BotMessages(d.chans[person]) {
		out = append(out, m.Content)
	}
	return out
}

// observe tells the log about a message created, edited or deleted in a
// person's DM channel (/channels/<id>/messages[/<id>]). The people map is
// complete before Parley starts, so reading it here needs no lock.
func (d *discord) observe(c discordtest.Call) {
	if c.Status < 200 || c.Status > 299 || c.Method == http.MethodGet {
		return
	}
	segs := strings.Split(strings.Trim(c.Path, "/"), "/")
	if len(segs) < 3 || segs[0] != "channels" || segs[2] != "messages" {
		return
	}
	person, ok := d.people[segs[1]]
	if !ok {
		return
	}
	d.changes.note(person, true, c.Method == http.MethodPatch)
}

func (d *discord) log() *callLog    { return d.changes }
func (d *discord) rateLimited() int { return d.srv.RateLimited() }
func (d *discord) calls() int       { return len(d.srv.Calls()) }
func (d *discord) Close()           { d.srv.Close() }
