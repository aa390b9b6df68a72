package config

// History configures how long conversations are kept (docs/history.md):
// what history_search finds, the console lists and exports.
type History struct {
	// KeepDays is how many days a conversation is kept after its last
	// message; then it is deleted whole, its transcript and its index
	// together. 0 (the default) keeps conversations forever.
	KeepDays int `mapstructure:"keep_days"`
}

// validate checks the history.* keys.
func (h History) validate() []string {
	return outOfRange(bound[int]{"history.keep_days", h.KeepDays, 0, 100 * 366})
}
