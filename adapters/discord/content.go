package discord

// Application flags (GET /applications/@me "flags") saying the Message
// Content intent is enabled: GATEWAY_MESSAGE_CONTENT for verified bots
// (100+ servers), GATEWAY_MESSAGE_CONTENT_LIMITED for the others.
const (
	flagMessageContent        = 1 << 18
	flagMessageContentLimited = 1 << 19
)

// MessageContentEnabled reports whether application flags show the Message
// Content intent enabled in the Developer Portal. Without it the gateway
// refuses the adapter's IDENTIFY (close code 4014, disallowed intents), or
// guild messages arrive with empty content; doctor checks it up front.
func MessageContentEnabled(flags int) bool {
	return flags&(flagMessageContent|flagMessageContentLimited) != 0
}

// warnContentIntent tells the operator, once, why guild messages arrive
// empty.
func (a *Adapter) warnContentIntent() {
	if a.warned.Add("intent:message_content", struct{}{}) {
		a.log.Warn("a message mentioning the bot arrived with empty content: the Message Content intent " +
			"is off; enable it in the Discord Developer Portal (Bot → Privileged Gateway Intents → Message Content Intent)")
	}
}
