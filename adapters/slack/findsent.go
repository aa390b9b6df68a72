package slack

import (
	"context"
	"errors"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/chat"
)

// A final answer's part posted without a placeholder carries its
// chat.Out.Key in the message's metadata (docs.slack.dev "Message
// metadata"), so that delivery, unsure whether a post went through (a
// crash between the call and recording its ts, a timeout), finds it in the
// conversation instead of posting it twice.

var _ chat.SentFinder = (*Adapter)(nil)

// replyEventType is the metadata event_type of Parley's answers.
const replyEventType = "parley_reply"

// findPages bounds how many pages of history FindSent reads: the message
// it looks for came right after the one it answers, and a conversation
// busy enough to bury it deeper is not worth Tier 3 calls.
const (
	findPages    = 3
	findPageSize = 100
)

// keyMetadata is the metadata option of a message sent with key, none
// without one.
func keyMetadata(key string) []slack.MsgOption {
	if key == "" {
		return nil
	}
	return []slack.MsgOption{slack.MsgOptionMetadata(slack.SlackMetadata{
		EventType: replyEventType, EventPayload: map[string]any{"key": key},
	})}
}

// FindSent looks for the message sent in t with Out.Key key, among the
// messages after after (a ts; "" reads from the newest): the thread's
// replies (conversations.replies) or, at a conversation's top level (a
// DM), its history (conversations.history), metadata included.
func (a *Adapter) FindSent(ctx context.Context, t chat.Thread, key, after string) (chat.MessageRef, bool, error) {
	if err := checkThread(t); err != nil {
		return chat.MessageRef{}, false, err
	}
	if key == "" {
		return chat.MessageRef{}, false, errors.New("slack: looking for a message without a key")
	}
	cursor := ""
	for range findPages {
		var (
			msgs []slack.Message
			err  error
		)
		if t.ID != "" {
			msgs, _, cursor, err = a.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
				ChannelID: t.Chat, Timestamp: t.ID, Oldest: after, Cursor: cursor, Limit: findPageSize, IncludeAllMetadata: true,
			})
		} else {
			var resp *slack.GetConversationHistoryResponse
			resp, err = a.api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{
				ChannelID: t.Chat, Oldest: after, Cursor: cursor, Limit: findPageSize, IncludeAllMetadata: true,
			})
			if resp != nil {
				msgs, cursor = resp.Messages, resp.ResponseMetaData.NextCursor
			}
		}
		if err != nil {
			method := "conversations.history"
			if t.ID != "" {
				method = "conversations.replies"
			}
			return chat.MessageRef{}, false, wrap(method, err)
		}
		for _, m := range msgs {
			if md := m.Metadata; md.EventType == replyEventType && md.EventPayload["key"] == key {
				return chat.MessageRef{Thread: t, ID: m.Timestamp}, true, nil
			}
		}
		if cursor == "" {
			break
		}
	}
	return chat.MessageRef{}, false, nil
}
