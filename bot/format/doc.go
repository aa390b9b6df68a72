// Package format turns the Markdown that Parley's model writes into what each
// chat platform accepts, and cuts long answers into platform-sized parts.
//
// The Markdown is parsed once per call with goldmark (CommonMark + GFM, with
// the CJK extension's escaped-space rule) and the tree is rendered by one of
// five dialects (container nesting past 16 levels, and runs of unclosed
// link openers, are shown as text rather than parsed: see nesting.go):
//
//   - [Slack]: mrkdwn for the fallback path (the adapter prefers Slack's own
//     markdown_text / markdown block for model output).
//   - [TelegramHTML]: the HTML parse mode, always well formed.
//   - [Discord]: Discord's Markdown, re-emitted from the tree so that the
//     constructs Discord lacks (tables, images, deep headings, rules, raw
//     HTML) are rewritten.
//   - [Plain]: text without markup, for when a platform rejects formatting.
//   - [Terminal]: ANSI SGR attributes for the terminal chat, with the
//     model's control characters dropped so that only the dialect's own
//     escape sequences reach the terminal ([TerminalSafe] for other text).
//
// [Split] cuts a long answer's Markdown source into parts whose rendering
// fits a platform limit, measured by [MeasureSlack], [MeasureTelegram] or
// [MeasureDiscord] ([UTF16Len], [TelegramVisibleLen]). [CodeBlock] and
// [Squash] make text from people and models safe to show.
//
// Everything here is a pure function of its input: there is no mutable
// package state, and every function is safe for concurrent use.
package format
