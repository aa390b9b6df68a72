package main

import "testing"

// TestScopeOfDir: a skills folder read back as its scope key, a named
// agent's whose name holds '_' included.
func TestScopeOfDir(t *testing.T) {
	agents := []string{"default", "eng", "eng_ops", "my_bot"}
	for _, tt := range []struct{ dir, want string }{
		{"operator", "operator"},
		{"space_slack_T012", "space:slack:T012"},
		{"person_telegram_42", "person:telegram:42"},
		{"agent_eng_space_slack_T012", "agent:eng:space:slack:T012"},
		{"agent_eng_ops_operator", "agent:eng_ops:operator"},
		{"agent_my_bot_person_slack_U1", "agent:my_bot:person:slack:U1"},
		{"agent_gone_operator", "agent:gone:operator"}, // an agent no longer configured: read as written
	} {
		if got := scopeOfDir(tt.dir, agents); got != tt.want {
			t.Errorf("scopeOfDir(%q) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}
