package discordtest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/parleybot/parley/adapters/discord/discordtest"
)

// TestCreateNonce: a create with enforce_nonce and a nonce seen within the
// window answers with the first message and creates nothing; a nonce, as
// an integer or a string of at most 25 characters, without enforce_nonce
// dedupes nothing; a longer string is refused.
func TestCreateNonce(t *testing.T) {
	srv := newServer(t, discordtest.WithoutRateLimits())
	s := newSession(t, srv, srv.Token())
	post := func(body map[string]any) (string, error) {
		endpoint := "https://discord.com/api/v9/channels/" + general + "/messages"
		var m struct {
			ID    string `json:"id"`
			Nonce string `json:"nonce"`
		}
		raw, err := s.RequestWithBucketID(http.MethodPost, endpoint, body, endpoint)
		if err != nil {
			return "", err
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", err
		}
		return m.ID, nil
	}
	first, err := post(map[string]any{"content": "one", "nonce": "abc", "enforce_nonce": true})
	if err != nil {
		t.Fatal(err)
	}
	again, err := post(map[string]any{"content": "one again", "nonce": "abc", "enforce_nonce": true})
	if err != nil || again != first {
		t.Fatalf("the enforced nonce again: %s, %v; want the first message %s", again, err, first)
	}
	if _, err := post(map[string]any{"content": "not enforced", "nonce": 12345}); err != nil {
		t.Fatal(err)
	}
	if _, err := post(map[string]any{"content": "not enforced either", "nonce": 12345}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.BotMessages(general)); n != 3 || srv.NonceReturns() != 1 {
		t.Errorf("%d messages, %d nonce returns; want 3 and 1", n, srv.NonceReturns())
	}
	_, err = post(map[string]any{"content": "too long", "nonce": "an-awfully-long-nonce-of-more-than-25", "enforce_nonce": true})
	restErr(t, err, http.StatusBadRequest, 50035)
}
