package webconsole_test

import "github.com/parleybot/parley/bot"

func botFilter(action string) bot.AuditFilter { return bot.AuditFilter{Action: action} }
