// Package chat is the contract between Parley's core and the chat
// platforms: who is talking where (Thread, User), what they send (Message,
// Action, Command, File), what Parley shows (Out), what an adapter is and
// may also be (Adapter and the optional interfaces), the errors every
// platform's are mapped to, and each platform's description (Platform). It
// imports no agent code, so an adapter compiles this and its SDK alone.
package chat

import (
	"fmt"
	"strings"
)

// Thread names one conversation (docs/architecture.md, Conversation
// identity). Platform is "console", "slack", "telegram" or "discord"; Space
// is the workspace or guild (empty where the platform has none); Chat the
// channel or chat; ID the thread root, topic or reply chain (empty for a
// continuing DM).
type Thread struct {
	Platform string
	Space    string
	Chat     string
	ID       string
}

func (t Thread) String() string {
	return fmt.Sprintf("%s:%s:%s:%s", t.Platform, t.Space, t.Chat, t.ID)
}

// User is a person on one platform.
type User struct {
	Platform string
	ID       string
	Name     string // display name, for prompts and messages
}

// Key is the stable identity memory is stored under: "platform:id".
func (u User) Key() string { return u.Platform + ":" + u.ID }

// ParseUserKey is the person a Key names; ok is false when key has no
// platform or no id.
func ParseUserKey(key string) (u User, ok bool) {
	platform, id, _ := strings.Cut(key, ":")
	return User{Platform: platform, ID: id}, platform != "" && id != ""
}
