package metrics

import (
	"net/http"
	"slices"
	"strings"
)

// Transport wraps next (nil: http.DefaultTransport) to count the API
// requests of platform's adapter: by method, the 429s among them, the
// edits it accepted, and failures by class. Adapters take an
// *http.Client, so this needs no change to them, and it sees every call
// — sends, edits, streams, polls and downloads — whoever makes it.
func (r *Recorder) Transport(platform string, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return transport{r: r, platform: platformLabel(platform), next: next}
}

type transport struct {
	r        *Recorder
	platform string
	next     http.RoundTripper
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	method := methodOf(t.platform, req)
	resp, err := t.next.RoundTrip(req)
	t.r.calls.WithLabelValues(t.platform, method).Inc()
	switch {
	case err != nil:
		if req.Context().Err() == nil { // a cancelled long poll is no failure
			t.r.errors.WithLabelValues(t.platform, "network").Inc()
		}
	case resp.StatusCode == http.StatusTooManyRequests:
		t.r.rateLimited.WithLabelValues(t.platform, method).Inc()
		t.r.errors.WithLabelValues(t.platform, "rate_limit").Inc()
	case resp.StatusCode >= 500:
		t.r.errors.WithLabelValues(t.platform, "server").Inc()
	case resp.StatusCode >= 400:
		t.r.errors.WithLabelValues(t.platform, "client").Inc()
	case isEdit(t.platform, method):
		t.r.edits.WithLabelValues(t.platform).Inc()
	}
	return resp, err
}

// methodOf names the API method req calls, from a fixed vocabulary per
// platform: the URL is never copied into a label, since Telegram's carries
// the bot token and Discord's interaction routes a token of their own.
func methodOf(platform string, req *http.Request) string {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	last := segs[len(segs)-1]
	switch platform {
	case "telegram":
		// /bot<token>/<method>, or /file/bot<token>/<path> for a download.
		if slices.Contains(segs, "file") {
			return "file"
		}
		if slices.Contains(telegramMethods(), last) {
			return last
		}
	case "slack":
		// <api url>/<method>; files and response_urls live elsewhere.
		if slices.Contains(slackMethods(), last) {
			return last
		}
		switch {
		case strings.HasPrefix(req.URL.Host, "files."):
			return "file"
		case strings.HasPrefix(req.URL.Host, "hooks."):
			return "response_url"
		}
	case "discord":
		return discordRoute(req.Method, segs)
	}
	return "other"
}

// telegramMethods are the Bot API methods Parley calls.
func telegramMethods() []string {
	return []string{"getMe", "getUpdates", "setMyCommands", "deleteWebhook", "setWebhook", "sendMessage",
		"editMessageText", "editMessageReplyMarkup", "deleteMessage", "sendChatAction", "sendMessageDraft",
		"answerCallbackQuery", "getFile", "getChat"}
}

// slackMethods are the Web API methods Parley calls.
func slackMethods() []string {
	return []string{"auth.test", "apps.connections.open", "chat.postMessage", "chat.update", "chat.postEphemeral",
		"chat.delete", "chat.startStream", "chat.appendStream", "chat.stopStream", "assistant.threads.setStatus",
		"assistant.threads.setSuggestedPrompts", "assistant.threads.setTitle", "users.info", "conversations.info",
		"conversations.history", "conversations.replies", "conversations.open"}
}

// discordWords are the route segments kept in a Discord method; any
// other segment (ids, tokens) reads {}.
func discordWords() []string {
	return []string{"channels", "messages", "typing", "threads", "users", "@me", "@original", "gateway", "bot",
		"applications", "guilds", "commands", "interactions", "callback", "webhooks", "attachments", "reactions"}
}

// isAPIPrefix reports whether seg is part of a Discord URL before the
// route: /api/v9.
func isAPIPrefix(seg string) bool {
	if seg == "api" {
		return true
	}
	v, ok := strings.CutPrefix(seg, "v")
	return ok && v != "" && strings.Trim(v, "0123456789") == ""
}

// discordRoute is "VERB route", the route's ids and tokens replaced by
// {}: "PATCH channels/{}/messages/{}".
func discordRoute(verb string, segs []string) string {
	switch verb {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		verb = "OTHER"
	}
	for len(segs) > 0 && isAPIPrefix(segs[0]) {
		segs = segs[1:]
	}
	const maxSegs = 8 // Discord's routes are shorter; the label stays bounded
	out := make([]string, 0, min(len(segs), maxSegs))
	for _, s := range segs[:min(len(segs), maxSegs)] {
		if !slices.Contains(discordWords(), s) {
			s = "{}"
		}
		out = append(out, s)
	}
	return verb + " " + strings.Join(out, "/")
}

// isEdit reports whether method changes a message already shown: what the
// edit budget (parley_edit_budget_total) pays for.
func isEdit(platform, method string) bool {
	switch platform {
	case "telegram":
		return method == "editMessageText" || method == "editMessageReplyMarkup" || method == "sendMessageDraft"
	case "slack":
		return method == "chat.update" || method == "chat.appendStream"
	case "discord":
		return strings.HasPrefix(method, "PATCH ") && strings.Contains(method, "/messages/")
	}
	return false
}
