package rowdata

import (
	"fmt"

	"github.com/parleybot/parley/bot"
)

// CostColumn is the costs table's column that by groups on, or for
// bot.ByDay utcDay, the engine's expression for the UTC day of at as
// 2006-01-02. It is the only way a CostGroup reaches either engine's SQL:
// a group is named by callers (a command's argument, a URL), so it is
// mapped, never interpolated.
func CostColumn(by bot.CostGroup, utcDay string) (string, error) {
	switch by {
	case bot.ByDay:
		return utcDay, nil
	case bot.ByUser:
		return "user_key", nil
	case bot.ByAgent:
		return "agent", nil
	case bot.ByPlace:
		return "place", nil
	}
	return "", fmt.Errorf("unknown cost group %q (want %q, %q, %q or %q)", by, bot.ByUser, bot.ByAgent, bot.ByPlace, bot.ByDay)
}
