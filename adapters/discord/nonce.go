package discord

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/bwmarrin/discordgo"
)

// A final answer's part posted without a placeholder carries a nonce made
// from its chat.Out.Key, with enforce_nonce: Discord answers a create
// repeated with the same nonce within a few minutes with the message the
// first one made, and creates nothing (docs "Create Message"). Delivery
// repeats a create whose outcome it does not know (a timeout, a crash
// between the call and recording the message) with the same key, so the
// answer shows once. discordgo v0.29.0's MessageSend has neither field.

// nonceLen is the longest string nonce Discord accepts.
const nonceLen = 25

// nonceOf derives a create's nonce from a reply key: stable across
// restarts, and short enough whatever the key.
func nonceOf(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])[:nonceLen]
}

// nonceSend is a MessageSend with the nonce fields discordgo lacks.
type nonceSend struct {
	*discordgo.MessageSend
	Nonce        string `json:"nonce"`
	EnforceNonce bool   `json:"enforce_nonce"`
}

// createMessage is POST /channels/{id}/messages: ChannelMessageSendComplex,
// with an enforced nonce when key is set (no files: answers have none).
func (a *Adapter) createMessage(ctx context.Context, channel string, data *discordgo.MessageSend, key string) (*discordgo.Message, error) {
	if key == "" {
		return a.s.ChannelMessageSendComplex(channel, data, a.callOpts(ctx)...)
	}
	endpoint := discordgo.EndpointChannelMessages(channel)
	body, err := a.s.RequestWithBucketID("POST", endpoint, nonceSend{MessageSend: data, Nonce: nonceOf(key), EnforceNonce: true}, endpoint, a.callOpts(ctx)...)
	if err != nil {
		return nil, err
	}
	var m discordgo.Message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	return &m, nil
}
