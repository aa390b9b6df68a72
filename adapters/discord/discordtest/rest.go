package discordtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
)

// maxBody is the largest request body the fake reads; Discord's own cap on
// uploads is far larger, but no JSON payload gets near this.
const maxBody = 8 << 20

// Call is one REST request the fake answered. Path has no /api/v9 prefix
// and no query string.
type Call struct {
	Method, Path string
	Status       int
	Body         string
}

type request struct {
	params      []string // the {…} segments of the route, in order
	query       url.Values
	body        []byte
	contentType string
	auth        string
}

type reply struct {
	status int
	body   any // nil: no body
}

func fail(e *apiError) reply { return reply{status: e.status, body: e} }

func okJSON(body any) reply { return reply{status: http.StatusOK, body: body} }

func noContent() reply { return reply{status: http.StatusNoContent} }

// route is one REST endpoint. name is its template with every parameter
// written {id} (or {token}), the form faults and limits are keyed by.
type route struct {
	name   string
	method string
	segs   []string
	major  int  // index into params of the major parameter; -1 none
	token  bool // authenticated by the interaction token in the path, not the bot token
	handle func(*Server, *request) reply
}

func newRoute(name string, major int, h func(*Server, *request) reply) route {
	method, path, _ := strings.Cut(name, " ")
	return route{name: name, method: method, segs: strings.Split(strings.Trim(path, "/"), "/"), major: major, handle: h}
}

func tokenRoute(name string, h func(*Server, *request) reply) route {
	r := newRoute(name, 1, h)
	r.token = true
	return r
}

// routes lists the endpoints in match order: literal segments before
// parameters where both could match (@original before {id}).
func routes() []route {
	return []route{
		newRoute("GET /gateway", -1, (*Server).getGateway),
		newRoute("GET /gateway/bot", -1, (*Server).getGatewayBot),
		newRoute("GET /users/@me", -1, (*Server).getMe),
		newRoute("POST /users/@me/channels", -1, (*Server).createDM),
		newRoute("GET /applications/@me", -1, (*Server).getApplication),
		newRoute("GET /oauth2/applications/@me", -1, (*Server).getApplication),
		newRoute("GET /channels/{id}", 0, (*Server).getChannel),
		newRoute("GET /channels/{id}/messages", 0, (*Server).listMessages),
		newRoute("POST /channels/{id}/messages", 0, (*Server).createMessage),
		newRoute("GET /channels/{id}/messages/{id}", 0, (*Server).getMessage),
		newRoute("PATCH /channels/{id}/messages/{id}", 0, (*Server).editMessage),
		newRoute("DELETE /channels/{id}/messages/{id}", 0, (*Server).deleteMessage),
		newRoute("POST /channels/{id}/typing", 0, (*Server).typingStart),
		newRoute("POST /channels/{id}/messages/{id}/threads", 0, (*Server).startThread),
		newRoute("GET /guilds/{id}/members/{id}", 0, (*Server).getMember),
		newRoute("GET /applications/{id}/commands", 0, (*Server).getCommands),
		newRoute("PUT /applications/{id}/commands", 0, (*Server).putCommands),
		newRoute("GET /applications/{id}/guilds/{id}/commands", 1, (*Server).getCommands),
		newRoute("PUT /applications/{id}/guilds/{id}/commands", 1, (*Server).putCommands),
		tokenRoute("POST /interactions/{id}/{token}/callback", (*Server).interactionCallback),
		tokenRoute("PATCH /webhooks/{id}/{token}/messages/@original", (*Server).editOriginal),
		tokenRoute("POST /webhooks/{id}/{token}", (*Server).createFollowup),
		tokenRoute("PATCH /webhooks/{id}/{token}/messages/{id}", (*Server).editFollowup),
	}
}

// normalizeRoute makes "PATCH /channels/{channel}/messages/{message}" and
// "PATCH /channels/{id}/messages/{id}" the same key.
func normalizeRoute(name string) string {
	method, path, _ := strings.Cut(strings.TrimSpace(name), " ")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "{}"
		}
	}
	return strings.ToUpper(method) + " /" + strings.Join(segs, "/")
}

// match finds the route for a path; methodOK is false when only the
// method differs (405).
func match(rs []route, method, path string) (rt route, params []string, found, methodOK bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for _, r := range rs {
		p, ok := r.match(segs)
		if !ok {
			continue
		}
		if r.method != method {
			found = true
			continue
		}
		return r, p, true, true
	}
	return route{}, nil, found, false
}

func (r route) match(segs []string) ([]string, bool) {
	if len(segs) != len(r.segs) {
		return nil, false
	}
	var params []string
	for i, want := range r.segs {
		switch {
		case strings.HasPrefix(want, "{"):
			if segs[i] == "" {
				return nil, false
			}
			params = append(params, segs[i])
		case want != segs[i]:
			return nil, false
		}
	}
	return params, true
}

func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, apiPrefix)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeJSON(w, 0, errBody(http.StatusRequestEntityTooLarge, codeRequestTooLarge, "Request entity too large"))
		return
	}
	rt, params, found, methodOK := match(s.routes, r.Method, path)
	req := &request{params: params, query: r.URL.Query(), body: body,
		contentType: r.Header.Get("Content-Type"), auth: r.Header.Get("Authorization")}

	s.mu.Lock()
	var (
		rep     reply
		headers http.Header
	)
	switch {
	case !found:
		rep = fail(notFound())
	case !methodOK:
		rep = fail(errBody(http.StatusMethodNotAllowed, 0, "405: Method Not Allowed"))
	default:
		rep, headers = s.handleLocked(rt, req)
	}
	call := Call{Method: r.Method, Path: path, Status: rep.status, Body: string(body)}
	s.calls = append(s.calls, call)
	if s.opts.observe != nil {
		s.opts.observe(call)
	}
	s.notifyLocked()
	s.mu.Unlock()
	if found && methodOK && rep.status < 300 {
		s.holdAnswer(r.Context(), normalizeRoute(rt.name))
	}

	for k, v := range headers {
		w.Header()[k] = v
	}
	if rep.body == nil {
		w.WriteHeader(rep.status)
		return
	}
	writeJSON(w, rep.status, rep.body)
}

// handleLocked runs one matched call: injected faults, authentication,
// rate limits, then the endpoint. Callers hold s.mu.
func (s *Server) handleLocked(rt route, req *request) (reply, http.Header) {
	key := normalizeRoute(rt.name)
	major := ""
	if rt.major >= 0 && rt.major < len(req.params) {
		major = req.params[rt.major]
	}
	if rep, h, injected := s.injectedLocked(key, major); injected {
		return rep, h
	}
	// Token-authenticated endpoints (interaction callbacks, webhooks) and
	// GET /gateway take no bot token on Discord.
	if !rt.token && rt.name != "GET /gateway" && req.auth != "Bot "+s.opts.token {
		return fail(errBody(http.StatusUnauthorized, 0, "401: Unauthorized")), nil
	}
	h, limited := s.limitLocked(key, major, !rt.token)
	if limited != nil {
		s.rateLimited++
		return *limited, h
	}
	return rt.handle(s, req), h
}

// decode reads a JSON body, or the payload_json part of a multipart one.
// An empty body decodes as {}.
func (r *request) decode(v any) *apiError {
	data := r.body
	if mt, params, err := mime.ParseMediaType(r.contentType); err == nil && mt == "multipart/form-data" {
		form, err := multipart.NewReader(bytes.NewReader(r.body), params["boundary"]).ReadForm(maxBody)
		if err != nil {
			return invalidJSON()
		}
		defer func() { _ = form.RemoveAll() }()
		vals := form.Value["payload_json"]
		if len(vals) == 0 {
			return emptyMessage()
		}
		data = []byte(vals[0])
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := json.Unmarshal(data, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			errs := formErrors{}
			errs.add(typeErr.Field, "BASE_TYPE_BAD", "Value is of the wrong type.")
			return errs.apiError()
		}
		return invalidJSON()
	}
	return nil
}
