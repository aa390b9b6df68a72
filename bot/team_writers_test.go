package bot_test

import (
	"testing"

	"github.com/parleybot/parley/bot"
)

func TestTeamWriters(t *testing.T) {
	access := bot.Access{Admins: []string{"slack:boss"}}
	tests := []struct {
		config  []string
		wantErr bool
		may     map[string]bool
	}{
		{nil, false, map[string]bool{"slack:ann": true, "slack:boss": true}},
		{[]string{"anyone"}, false, map[string]bool{"slack:ann": true, "telegram:1": true}},
		{[]string{"admins"}, false, map[string]bool{"slack:ann": false, "slack:boss": true}},
		{[]string{"slack:ann", "telegram:42"}, false, map[string]bool{"slack:ann": true, "telegram:42": true, "slack:bob": false, "slack:boss": true}},
		{[]string{"anyone", "slack:ann"}, true, nil},
		{[]string{"ann"}, true, nil},
		{[]string{"slack:"}, true, nil},
	}
	for _, tc := range tests {
		w, err := bot.ParseTeamWriters(tc.config)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseTeamWriters(%q) = %v, want error %v", tc.config, err, tc.wantErr)
			continue
		}
		for user, want := range tc.may {
			if got := w.May(access, user); got != want {
				t.Errorf("writers %q: May(%s) = %v, want %v", tc.config, user, got, want)
			}
		}
	}
}
