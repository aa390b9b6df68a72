package slacktest

import (
	"encoding/json"
)

// The App Home's Home tab: people open it (OpenHome delivers
// app_home_opened), the app publishes a view per person (views.publish),
// and tests read what each person sees (HomeView).

// maxHomeBlocks is how many blocks Slack takes in a Home tab view.
const maxHomeBlocks = 100

// OpenHome makes user open the app's App Home on tab ("home", "messages"
// or "about") and delivers app_home_opened, as Slack does each time a
// person opens it. channel is the person's DM with the app (D + user).
// It returns the envelope id.
func (s *Server) OpenHome(user, tab string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.user(user)
	ch := s.st.channel("D" + user)
	s.st.join(ch.ID, user)
	ev := map[string]any{"type": "app_home_opened", "user": user, "channel": ch.ID, "tab": tab, "event_ts": s.st.nextTS()}
	if v, ok := s.st.homes[user]; ok {
		ev["view"] = v // Slack sends the view published before, if any
	}
	return s.eventCallbackLocked(ev)
}

// viewsPublish records the Home tab view the app publishes for user_id.
// Like Slack, it refuses an unknown user and a view that is not a Home
// view or has too many blocks (invalid_arguments).
func (s *Server) viewsPublish(r apiRequest) result {
	user := r.params.Get("user_id")
	if _, ok := s.st.users[user]; !ok {
		return errResult("invalid_arguments")
	}
	var view struct {
		Type   string            `json:"type"`
		Blocks []json.RawMessage `json:"blocks"`
	}
	raw := r.params.Get("view")
	if err := json.Unmarshal([]byte(raw), &view); err != nil || view.Type != "home" || len(view.Blocks) > maxHomeBlocks {
		return errResult("invalid_arguments")
	}
	s.st.homes[user] = json.RawMessage(raw)
	return result{"view": map[string]any{"id": s.st.nextID("V"), "type": "home", "team_id": s.opts.teamID,
		"blocks": view.Blocks, "app_id": s.opts.appID, "bot_id": s.opts.botID}}
}

// HomeView is the Home tab view last published for user (the view JSON
// as the app sent it), or nil when none was.
func (s *Server) HomeView(user string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.homes[user]
}
