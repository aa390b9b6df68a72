package slacktest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Call is one Web API request as the fake saw and answered it.
type Call struct {
	Method   string
	Params   url.Values // form fields, or the top-level fields of a JSON body
	Status   int        // HTTP status answered (0 for a dropped connection)
	Response json.RawMessage
	Time     time.Time
}

// apiRequest is what a method handler gets; handlers run with Server.mu held.
type apiRequest struct {
	method string
	params url.Values
}

// result is a handler's answer: an ok:true body with extra fields, or a Slack
// error code.
type result map[string]any

func errResult(code string) result { return result{"ok": false, "error": code} }

type handler func(s *Server, r apiRequest) result

// methods is the Web API surface the fake implements; anything else answers
// unknown_method like Slack.
var methods = map[string]handler{
	"auth.test":                             (*Server).authTest,
	"apps.connections.open":                 (*Server).appsConnectionsOpen,
	"chat.postMessage":                      (*Server).chatPostMessage,
	"chat.update":                           (*Server).chatUpdate,
	"chat.postEphemeral":                    (*Server).chatPostEphemeral,
	"chat.startStream":                      (*Server).chatStartStream,
	"chat.appendStream":                     (*Server).chatAppendStream,
	"chat.stopStream":                       (*Server).chatStopStream,
	"assistant.threads.setStatus":           (*Server).assistantSetStatus,
	"assistant.threads.setSuggestedPrompts": (*Server).assistantSetSuggestedPrompts,
	"assistant.threads.setTitle":            (*Server).assistantSetTitle,
	"users.info":                            (*Server).usersInfo,
	"conversations.info":                    (*Server).conversationsInfo,
	"conversations.members":                 (*Server).conversationsMembers,
	"conversations.replies":                 (*Server).conversationsReplies,
	"conversations.history":                 (*Server).conversationsHistory,
	"views.publish":                         (*Server).viewsPublish,
}

func (s *Server) serveWebAPI(w http.ResponseWriter, r *http.Request) {
	method := r.PathValue("method")
	params, err := readParams(r)
	if err != nil {
		writeJSON(w, http.StatusOK, errResult("invalid_form_data"))
		return
	}
	token := params.Get("token")
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && token == "" {
		token = bearer
	}
	params.Del("token") // never keep credentials in the call log

	s.mu.Lock()
	status, body, drop := s.dispatchLocked(method, token, params)
	call := Call{Method: method, Params: params, Status: status, Time: s.now()}
	if !drop {
		call.Response, _ = json.Marshal(body)
	}
	s.calls = append(s.calls, call)
	if s.opts.observe != nil {
		s.opts.observe(call)
	}
	s.notifyLocked()
	s.mu.Unlock()
	if !drop && status == http.StatusOK && body["ok"] == true {
		s.holdAnswer(r.Context(), method)
	}

	switch {
	case drop:
		dropConnection(w)
	case status == http.StatusInternalServerError:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "<html><body>Internal Server Error</body></html>")
	default:
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", body["retry_after"].(string))
			delete(body, "retry_after")
		}
		writeJSON(w, status, body)
	}
}

// dispatchLocked applies faults, auth and rate limits, then the handler.
func (s *Server) dispatchLocked(method, token string, params url.Values) (status int, body result, drop bool) {
	if f, ok := s.popFault(method); ok {
		switch f.kind {
		case FaultRateLimited:
			return rateLimited(max(f.retryAfter, time.Second))
		case FaultServerError:
			return http.StatusInternalServerError, nil, false
		case FaultDropConnection:
			return 0, nil, true
		default:
			return http.StatusOK, errResult(f.slackErr), false
		}
	}
	h, ok := methods[method]
	if !ok {
		return http.StatusOK, errResult("unknown_method"), false
	}
	want := s.opts.botToken
	if method == "apps.connections.open" {
		want = s.opts.appToken
	}
	switch {
	case token == "":
		return http.StatusOK, errResult("not_authed"), false
	case token != want && (token == s.opts.appToken || token == s.opts.botToken):
		return http.StatusOK, errResult("not_allowed_token_type"), false
	case token != want:
		return http.StatusOK, errResult("invalid_auth"), false
	}
	channel := params.Get("channel")
	if channel == "" {
		channel = params.Get("channel_id")
	}
	if ok, wait := s.limits.take(method, channel); !ok {
		return rateLimited(wait)
	}
	res := h(s, apiRequest{method: method, params: params})
	if _, set := res["ok"]; !set {
		res["ok"] = true
	}
	return http.StatusOK, res, false
}

// rateLimited is Slack's 429: Retry-After in whole seconds (at least 1, which
// is what slack-go parses into RateLimitedError.RetryAfter).
func rateLimited(wait time.Duration) (int, result, bool) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	return http.StatusTooManyRequests, result{"ok": false, "error": "ratelimited", "retry_after": strconv.Itoa(secs)}, false
}

// readParams accepts both encodings slack-go uses: form-encoded bodies for
// most methods and JSON bodies (with a Bearer token) for a few.
func readParams(r *http.Request) (url.Values, error) {
	ctype, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ctype != "application/json" {
		if err := r.ParseForm(); err != nil {
			return nil, fmt.Errorf("parse form: %w", err)
		}
		return r.Form, nil
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	v := url.Values{}
	if len(strings.TrimSpace(string(raw))) == 0 {
		return v, nil
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("decode json body: %w", err)
	}
	for k, f := range fields {
		if str, ok := f.(string); ok {
			v.Set(k, str)
			continue
		}
		b, _ := json.Marshal(f)
		v.Set(k, string(b))
	}
	return v, nil
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// dropConnection closes the client's TCP connection without a response.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

func (s *Server) authTest(_ apiRequest) result {
	o := s.opts
	return result{
		"url":     "https://" + o.teamDomain + ".slack.com/",
		"team":    o.teamName,
		"user":    o.botName,
		"team_id": o.teamID,
		"user_id": o.botUserID,
		"bot_id":  o.botID,
	}
}
