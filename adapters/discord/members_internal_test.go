package discord

import (
	"net/http"
	"testing"

	"github.com/parleybot/parley/chat"
)

// TestGuildMemberAnswers: what each answer of GET
// /guilds/{id}/members/{id} means, including 200s that are no member
// object, which discordgo's GuildMember would panic on.
func TestGuildMemberAnswers(t *testing.T) {
	const user = "555"
	route := "GET /guilds/" + testGuild + "/members/" + user
	th := chat.Thread{Platform: platform, Space: testGuild, Chat: testChan, ID: testThr}
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		want    bool
		wantErr bool
	}{
		{name: "member", status: http.StatusOK, body: `{"user":{"id":"555","username":"u"},"roles":[],"joined_at":"2026-01-01T00:00:00.000000+00:00"}`, want: true},
		{name: "unknown member", status: http.StatusNotFound, body: `{"message":"Unknown Member","code":10007}`},
		{name: "unknown user", status: http.StatusNotFound, body: `{"message":"Unknown User","code":10013}`},
		{name: "plain 404", status: http.StatusNotFound, body: `{"message":"404: Not Found","code":0}`, wantErr: true},
		{name: "missing access", status: http.StatusForbidden, body: `{"message":"Missing Access","code":50001}`, wantErr: true},
		{name: "empty 200", status: http.StatusOK, body: ``, wantErr: true},
		{name: "null 200", status: http.StatusOK, body: `null`, wantErr: true},
		{name: "someone else", status: http.StatusOK, body: `{"user":{"id":"556"}}`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeREST(t)
			f.answer(route, tc.status, tc.body)
			a := newTestAdapter(t, f, nil)
			got, err := a.IsMember(testCtx(t), th, user)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("IsMember = %v, %v; want %v (error %v)", got, err, tc.want, tc.wantErr)
			}
			if calls := f.recorded(); len(calls) != 1 {
				t.Errorf("%d calls, want 1", len(calls))
			}
		})
	}
}
