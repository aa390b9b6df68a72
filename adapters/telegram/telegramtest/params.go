package telegramtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// apiError is a Bot API error answer: {"ok":false,"error_code":Code,…}.
type apiError struct {
	Code        int
	Description string
	RetryAfter  int   // seconds; sent as parameters.retry_after
	MigrateTo   int64 // sent as parameters.migrate_to_chat_id
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Description) }

var (
	errUnauthorized = &apiError{Code: http.StatusUnauthorized, Description: "Unauthorized"}
	errNotFound     = &apiError{Code: http.StatusNotFound, Description: "Not Found"}
	errChatNotFound = badRequest("chat not found")
	errCantInitiate = &apiError{Code: http.StatusForbidden, Description: "Forbidden: bot can't initiate conversation with a user"}
)

func badRequest(format string, args ...any) *apiError {
	return &apiError{Code: http.StatusBadRequest, Description: "Bad Request: " + fmt.Sprintf(format, args...)}
}

func conflict(desc string) *apiError {
	return &apiError{Code: http.StatusConflict, Description: "Conflict: " + desc}
}

func tooManyRequests(secs int) *apiError {
	return &apiError{
		Code:        http.StatusTooManyRequests,
		Description: fmt.Sprintf("Too Many Requests: retry after %d", secs),
		RetryAfter:  secs,
	}
}

// params are a request's parameters, every value as text (JSON values as
// their JSON text).
type params map[string]string

func (p params) has(key string) bool {
	v, ok := p[key]
	return ok && v != "" && v != "null"
}

// int64 reads an integer parameter; absent is 0.
func (p params) int64(key string) (int64, error) {
	v := strings.TrimSpace(p[key])
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, badRequest("invalid %s specified", key)
	}
	return n, nil
}

func (p params) int(key string) (int, error) {
	n, err := p.int64(key)
	if err != nil {
		return 0, err
	}
	if int64(int(n)) != n {
		return 0, badRequest("invalid %s specified", key)
	}
	return int(n), nil
}

// bool reads a boolean the way Telegram does: "true"/"1" (any case) is true.
func (p params) bool(key string) bool {
	v := strings.ToLower(strings.TrimSpace(p[key]))
	return v == "true" || v == "1"
}

// json decodes an object parameter into v; absent (or null) leaves v alone
// and reports false.
func (p params) json(key string, v any, what string) (bool, error) {
	if !p.has(key) {
		return false, nil
	}
	if err := json.Unmarshal([]byte(p[key]), v); err != nil {
		return false, badRequest("can't parse %s JSON object", what)
	}
	return true, nil
}

// chatLocked resolves chat_id: a number, or the "@username" of a chat that
// has one. Callers hold s.mu.
func (s *Server) chatLocked(p params) (*chat, error) {
	raw := strings.TrimSpace(p["chat_id"])
	if raw == "" {
		return nil, badRequest("chat_id is empty")
	}
	if name, ok := strings.CutPrefix(raw, "@"); ok {
		if c := s.world.chatByUsername(name); c != nil {
			return c, nil
		}
		return nil, errChatNotFound
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return nil, errChatNotFound
	}
	c, ok := s.world.chats[id]
	if !ok {
		return nil, errChatNotFound
	}
	if c.migratedTo != 0 {
		return nil, &apiError{Code: http.StatusBadRequest, MigrateTo: c.migratedTo,
			Description: "Bad Request: group chat was upgraded to a supergroup chat"}
	}
	return c, nil
}
