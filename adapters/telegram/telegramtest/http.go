package telegramtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"strings"
)

// Call is one Bot API request as the fake saw and answered it.
type Call struct {
	Method string
	// Params holds form, multipart, query and JSON-body values; JSON objects
	// and arrays are kept as their JSON text, as clients send them in forms.
	Params      map[string]string
	Status      int    // HTTP status answered; 0 when the connection was dropped
	Description string // the error description when not ok
}

// handler serves one Bot API method. It runs with s.mu held; getUpdates
// releases it while it waits.
type handler func(s *Server, ctx context.Context, p params) (any, error)

// handlerFor is the Bot API surface of the fake; anything else is 404 as on
// Telegram.
func handlerFor(method string) (handler, bool) {
	switch method {
	case "getMe":
		return (*Server).getMe, true
	case "getUpdates":
		return (*Server).getUpdates, true
	case "setWebhook":
		return (*Server).setWebhook, true
	case "deleteWebhook":
		return (*Server).deleteWebhook, true
	case "getWebhookInfo":
		return (*Server).getWebhookInfo, true
	case "sendMessage":
		return (*Server).sendMessage, true
	case "editMessageText":
		return (*Server).editMessageText, true
	case "editMessageReplyMarkup":
		return (*Server).editMessageReplyMarkup, true
	case "deleteMessage":
		return (*Server).deleteMessage, true
	case "sendChatAction":
		return (*Server).sendChatAction, true
	case "sendMessageDraft":
		return (*Server).sendMessageDraft, true
	case "answerCallbackQuery":
		return (*Server).answerCallbackQuery, true
	case "setMyCommands":
		return (*Server).setMyCommands, true
	case "deleteMyCommands":
		return (*Server).deleteMyCommands, true
	case "getMyCommands":
		return (*Server).getMyCommands, true
	case "getChat":
		return (*Server).getChat, true
	case "getChatMember":
		return (*Server).getChatMember, true
	case "getFile":
		return (*Server).getFile, true
	}
	return nil, false
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/file/bot") {
		s.serveFile(w, r)
		return
	}
	token, method, ok := splitPath(r.URL.Path)
	if !ok {
		writeAnswer(w, nil, errNotFound)
		return
	}
	p, perr := readParams(w, r)
	res, drop, err := s.serve(r.Context(), token, method, p, perr)
	if drop {
		dropConnection(w)
		return
	}
	if err == nil {
		s.holdAnswer(r.Context(), method)
	}
	writeAnswer(w, res, err)
}

// serve authenticates, applies injected faults, runs the handler and
// records the call.
func (s *Server) serve(ctx context.Context, token, method string, p params, perr error) (res any, drop bool, err error) {
	h, known := handlerFor(method)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case token != s.opts.token:
		err = errUnauthorized
	case !known:
		err = errNotFound
	default:
		if f, ok := s.popFaultLocked(method); ok {
			err = f.err()
			break
		}
		if secs, hit := s.stormHitLocked(method); hit {
			err = tooManyRequests(secs)
			break
		}
		if perr != nil {
			err = badRequest("can't parse request body: %v", perr)
			break
		}
		drop = s.popDropLocked(method)
		res, err = h(s, ctx, p)
	}
	call := Call{Method: method, Params: maps.Clone(p), Status: http.StatusOK}
	var ae *apiError
	switch {
	case drop:
		call.Status = 0
	case errors.As(err, &ae):
		call.Status, call.Description = ae.Code, ae.Description
	case err != nil:
		call.Status, call.Description = http.StatusInternalServerError, err.Error()
	}
	s.calls = append(s.calls, call)
	if s.opts.observe != nil {
		s.opts.observe(call)
	}
	s.notifyLocked()
	return res, drop, err
}

// splitPath splits "/bot<token>/<method>".
func splitPath(path string) (token, method string, ok bool) {
	rest, ok := strings.CutPrefix(path, "/bot")
	if !ok {
		return "", "", false
	}
	token, method, ok = strings.Cut(rest, "/")
	if !ok || method == "" || strings.Contains(method, "/") {
		return "", "", false
	}
	return token, method, true
}

// maxBody bounds a request body; Telegram's own limit for non-upload
// requests is far below it.
const maxBody = 10 << 20

// readParams merges the query string with a form, multipart or JSON body.
func readParams(w http.ResponseWriter, r *http.Request) (params, error) {
	p := params{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	ctype, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ctype {
	case "application/json":
		return p, readJSONBody(r.Body, p)
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxBody); err != nil {
			return p, fmt.Errorf("multipart: %w", err)
		}
		for k, v := range r.MultipartForm.Value {
			p[k] = v[0]
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return p, fmt.Errorf("form: %w", err)
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
	}
	return p, nil
}

// readJSONBody flattens a JSON object into p: strings as themselves, other
// values as their JSON text (so "reply_markup" reads the same as in a form).
func readJSONBody(body io.Reader, p params) error {
	raw, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if strings.TrimSpace(string(raw)) == "" {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	for k, v := range fields {
		var str string
		switch {
		case string(v) == "null":
		case json.Unmarshal(v, &str) == nil:
			p[k] = str
		default:
			p[k] = string(v)
		}
	}
	return nil
}

type answer struct {
	OK          bool          `json:"ok"`
	Result      any           `json:"result,omitempty"`
	ErrorCode   int           `json:"error_code,omitempty"`
	Description string        `json:"description,omitempty"`
	Parameters  *answerParams `json:"parameters,omitempty"`
}

type answerParams struct {
	RetryAfter      int   `json:"retry_after,omitempty"`
	MigrateToChatID int64 `json:"migrate_to_chat_id,omitempty"`
}

func writeAnswer(w http.ResponseWriter, res any, err error) {
	status, body := http.StatusOK, answer{OK: true, Result: res}
	if err != nil {
		ae := &apiError{Code: http.StatusInternalServerError, Description: "Internal Server Error"}
		errors.As(err, &ae)
		status = ae.Code
		body = answer{ErrorCode: ae.Code, Description: ae.Description}
		if ae.RetryAfter > 0 || ae.MigrateTo != 0 {
			body.Parameters = &answerParams{RetryAfter: ae.RetryAfter, MigrateToChatID: ae.MigrateTo}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// dropConnection closes the client's connection without an answer: the
// call took effect, but the client sees a transport error.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}
