package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/chat"
)

// IsMember reports whether the Telegram user userID belongs to t's chat
// now (chat.MemberChecker). A private chat's member is its person, whose
// id is the chat's; no call is needed. In a group it is getChatMember:
// the creator, administrators, members and restricted people still in
// the chat (is_member) belong; people who left or were banned, and ids
// Telegram does not know there ("user not found"), do not. Someone
// writing as a chat ("chat:…", an anonymous admin or a channel) is no
// person to count. A rate limit comes back as *chat.RateLimitError.
func (a *Adapter) IsMember(ctx context.Context, t chat.Thread, userID string) (bool, error) {
	w, err := parseThread(t)
	if err != nil {
		return false, err
	}
	if userID == "" || strings.HasPrefix(userID, "chat:") {
		return false, nil
	}
	id, err := strconv.ParseInt(userID, 10, 64)
	if err != nil || !private(id) {
		return false, fmt.Errorf("telegram: membership of %q, not a person's id", userID)
	}
	if private(w.chat) {
		return id == w.chat, nil
	}
	res, err := a.call(ctx, "getChatMember", tgbotapi.Params{
		"chat_id": strconv.FormatInt(w.chat, 10), "user_id": strconv.FormatInt(id, 10),
	})
	if err != nil {
		if unknownMember(err) {
			return false, nil
		}
		return false, err
	}
	var m struct {
		Status   string `json:"status"`
		IsMember bool   `json:"is_member"`
	}
	if err := json.Unmarshal(res, &m); err != nil {
		return false, fmt.Errorf("telegram getChatMember: decode %s: %w", res, err)
	}
	switch m.Status {
	case "creator", "administrator", "member":
		return true, nil
	case "restricted":
		return m.IsMember, nil
	case "left", "kicked":
		return false, nil
	}
	return false, fmt.Errorf("telegram getChatMember: unknown status %q", m.Status)
}

// unknownMember is Telegram's 400 for a user it cannot place in the chat:
// never there, or unknown to the bot.
func unknownMember(err error) bool {
	e, ok := errors.AsType[*tgbotapi.Error](err)
	if !ok || e.Code != http.StatusBadRequest {
		return false
	}
	desc := strings.ToLower(e.Message)
	return strings.Contains(desc, "user not found") || strings.Contains(desc, "member not found") ||
		strings.Contains(desc, "participant_id_invalid")
}
