package slack

import (
	"context"
	"net/url"
	"strings"

	"github.com/parleybot/parley/chat"
)

var _ chat.MessageLinker = (*Adapter)(nil)

// MessageLink is a message's permalink, made as Slack makes them
// (https://<workspace>.slack.com/archives/<channel>/p<ts without its
// dot>, a reply's with its thread), without an API call per link: the
// workspace's address is auth.test's, asked when Run starts. key is one
// of messageKey's; "" links t's root message, or its channel. "" until
// Run has asked, or for a key that is not a Slack message's.
func (a *Adapter) MessageLink(_ context.Context, t chat.Thread, key string) string {
	base := strings.TrimSuffix(a.identity().URL, "/")
	if base == "" || t.Chat == "" {
		return ""
	}
	channel := base + "/archives/" + url.PathEscape(t.Chat)
	ts := t.ID
	if key != "" {
		parts := strings.Split(key, ":")
		if len(parts) != 3 || parts[1] != t.Chat {
			return ""
		}
		ts = parts[2]
	}
	if ts == "" {
		return channel
	}
	link := channel + "/p" + strings.Replace(ts, ".", "", 1)
	if t.ID != "" && t.ID != ts {
		link += "?" + url.Values{"thread_ts": {t.ID}, "cid": {t.Chat}}.Encode()
	}
	return link
}
