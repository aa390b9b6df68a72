package chat

import (
	"fmt"
	"strings"
)

// Places (docs/agents.md#places): a place names a set of conversations by
// their identity (Thread and whether it is a direct chat), as bindings of
// agents write them. The forms:
//
//	slack:channel:<C…>            a Slack channel (its threads included)
//	slack:workspace:<T…>          a Slack workspace, DMs in it included
//	slack:dm                      every Slack direct chat
//	telegram:chat:<id>            a Telegram group or private chat
//	telegram:topic:<chat>/<topic> one forum topic of a Telegram group
//	telegram:dm                   every Telegram private chat
//	discord:channel:<id>          a Discord channel (its threads included)
//	discord:server:<guild>        a Discord server
//	discord:dm                    every Discord direct chat
//	console                       the terminal
//	*                             everywhere

// PlaceKind is what a place names, by how specific it is.
type PlaceKind int

// The kinds, least specific first: a more specific place wins.
const (
	PlaceAll     PlaceKind = iota + 1 // "*"
	PlaceDirect                       // a platform's direct chats; the terminal
	PlaceSpace                        // a Slack workspace, a Discord server
	PlaceChannel                      // a channel or chat
	PlaceTopic                        // a Telegram forum topic
)

// PlaceSet is one parsed place: a set of conversations.
type PlaceSet struct {
	Kind     PlaceKind
	Platform string // "" for "*"
	ID       string // the channel, chat, workspace or server; "" for DMs
	Topic    string // a Telegram topic's message_thread_id
}

// PlaceForms lists the forms ParsePlaceSet accepts, for messages.
const PlaceForms = "slack:channel:<id>, slack:workspace:<id>, slack:dm, telegram:chat:<id>, " +
	"telegram:topic:<chat>/<topic>, telegram:dm, discord:channel:<id>, discord:server:<id>, discord:dm, console or *"

// placeKinds are the platforms' kinds of place, by the word that names them.
var placeKinds = map[string]map[string]PlaceKind{
	"slack":    {"channel": PlaceChannel, "workspace": PlaceSpace, "dm": PlaceDirect},
	"telegram": {"chat": PlaceChannel, "topic": PlaceTopic, "dm": PlaceDirect},
	"discord":  {"channel": PlaceChannel, "server": PlaceSpace, "dm": PlaceDirect},
}

// ParsePlaceSet reads a place in one of its forms (PlaceForms). Its
// errors say what is wrong without quoting s.
func ParsePlaceSet(s string) (PlaceSet, error) {
	switch s {
	case "*":
		return PlaceSet{Kind: PlaceAll}, nil
	case "console":
		return PlaceSet{Kind: PlaceDirect, Platform: "console"}, nil
	}
	bad := func(why string) (PlaceSet, error) {
		return PlaceSet{}, fmt.Errorf("%s; want one of %s", why, PlaceForms)
	}
	platform, rest, _ := strings.Cut(s, ":")
	kinds, ok := placeKinds[platform]
	if !ok {
		return bad("it names no platform")
	}
	word, id, hasID := strings.Cut(rest, ":")
	kind, ok := kinds[word]
	if !ok {
		return bad("it is no kind of place on " + platform)
	}
	p := PlaceSet{Kind: kind, Platform: platform}
	switch {
	case kind == PlaceDirect:
		if hasID {
			return bad("it takes no id")
		}
		return p, nil
	case kind == PlaceTopic:
		chat, topic, ok := strings.Cut(id, "/")
		if !ok || !placeID(platform, chat) || !digits(topic) {
			return bad("a topic is <chat>/<topic>, e.g. telegram:topic:-1001234567890/42")
		}
		p.ID, p.Topic = chat, topic
		return p, nil
	case !placeID(platform, id):
		return bad("its id is not a " + platform + " id")
	}
	p.ID = id
	return p, nil
}

// placeID reports whether id can be an id of platform: Slack's are
// upper-case letters and digits, Telegram's integers (groups negative),
// Discord's snowflakes.
func placeID(platform, id string) bool {
	switch platform {
	case "slack":
		for _, r := range id {
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
		return id != ""
	case "telegram":
		return digits(strings.TrimPrefix(id, "-"))
	}
	return digits(id)
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Matches reports whether the conversation t (a direct chat when direct)
// is in the place. A channel holds its threads: on Slack and Discord
// Thread.Chat is the channel a thread hangs off; a Telegram topic is
// Thread.ID "topic:<id>" in its group.
func (p PlaceSet) Matches(t Thread, direct bool) bool {
	if p.Kind == PlaceAll {
		return true
	}
	if t.Platform != p.Platform {
		return false
	}
	switch p.Kind {
	case PlaceDirect:
		return direct || p.Platform == "console"
	case PlaceSpace:
		return t.Space == p.ID
	case PlaceChannel:
		return t.Chat == p.ID
	case PlaceTopic:
		return t.Chat == p.ID && t.ID == "topic:"+p.Topic
	}
	return false
}

// String is the place in the form it was written.
func (p PlaceSet) String() string {
	switch {
	case p.Kind == PlaceAll:
		return "*"
	case p.Platform == "console":
		return "console"
	case p.Kind == PlaceDirect:
		return p.Platform + ":dm"
	case p.Kind == PlaceTopic:
		return p.Platform + ":topic:" + p.ID + "/" + p.Topic
	}
	for word, k := range placeKinds[p.Platform] {
		if k == p.Kind {
			return p.Platform + ":" + word + ":" + p.ID
		}
	}
	return ""
}

// ChannelOf is the place of t's channel or chat (the terminal's, on the
// console): what an admin's /agent use binds.
func ChannelOf(t Thread) PlaceSet {
	if t.Platform == "console" {
		return PlaceSet{Kind: PlaceDirect, Platform: "console"}
	}
	return PlaceSet{Kind: PlaceChannel, Platform: t.Platform, ID: t.Chat}
}
