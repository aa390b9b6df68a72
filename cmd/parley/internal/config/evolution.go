package config

// Evolution configures learning from use (docs/evolution.md): signals,
// the score that calls for reflection, the background scheduler and its
// budget, skills and the skill index.
type Evolution struct {
	// Enabled switches the whole loop: signals, reflection, skills, memo.
	Enabled bool `mapstructure:"enabled"`

	// CycleHours is the time between reflection cycles; CooldownHours the
	// least time between two reflections of one scope; ForceAfterDays
	// when an active scope reflects whatever its runs scored; MaxScopes
	// the most scopes one cycle reflects on.
	CycleHours     int `mapstructure:"cycle_hours"`
	CooldownHours  int `mapstructure:"cooldown_hours"`
	ForceAfterDays int `mapstructure:"force_after_days"`
	MaxScopes      int `mapstructure:"max_scopes"`

	// Threshold is the score from which a run calls for reflection;
	// Weights are each signal's score; ComplexToolCalls is where a run
	// counts as complex.
	Threshold        float64 `mapstructure:"threshold"`
	Weights          Weights `mapstructure:"weights"`
	ComplexToolCalls int     `mapstructure:"complex_tool_calls"`

	// CycleCalls, CycleTokens and CycleMinutes are one cycle's budget;
	// ReflectionCalls bounds one scope's reflection within it.
	CycleCalls      int `mapstructure:"cycle_calls"`
	CycleTokens     int `mapstructure:"cycle_tokens"`
	CycleMinutes    int `mapstructure:"cycle_minutes"`
	ReflectionCalls int `mapstructure:"reflection_calls"`

	// PacketTokens bounds what one reflection reads; WindowDays how far
	// back it looks.
	PacketTokens int `mapstructure:"packet_tokens"`
	WindowDays   int `mapstructure:"window_days"`

	// Model is the provider/model reflection asks (any configured
	// provider's); "" the default agent's: llm.model, then llm.fallback.
	Model string `mapstructure:"model"`

	// MaxSkills is the most skills per scope (the least recently used
	// goes first); IndexTokens bounds the skill index in each prompt.
	MaxSkills   int `mapstructure:"max_skills"`
	IndexTokens int `mapstructure:"index_tokens"`
}

// Weights are each signal's score (evolution.weights.*).
type Weights struct {
	Correction     float64 `mapstructure:"correction"`
	SkillThenError float64 `mapstructure:"skill_then_error"`
	Recovered      float64 `mapstructure:"recovered"`
	Weakness       float64 `mapstructure:"weakness"`
	Complexity     float64 `mapstructure:"complexity"`
}

func defaultEvolution() Evolution {
	return Evolution{
		Enabled:    true,
		CycleHours: 12, CooldownHours: 4, ForceAfterDays: 7, MaxScopes: 5,
		Threshold:        0.7,
		Weights:          Weights{Correction: 0.9, SkillThenError: 0.85, Recovered: 0.8, Weakness: 0.7, Complexity: 0.5},
		ComplexToolCalls: 8,
		CycleCalls:       30, CycleTokens: 300_000, CycleMinutes: 10, ReflectionCalls: 6,
		PacketTokens: 12_000, WindowDays: 14,
		MaxSkills: 200, IndexTokens: 3000,
	}
}

// validate checks the evolution.* keys.
func (e *Evolution) validate() []string {
	var p []string
	p = append(p, outOfRange(
		bound[int]{"evolution.cycle_hours", e.CycleHours, 1, 24 * 30},
		bound[int]{"evolution.cooldown_hours", e.CooldownHours, 0, 24 * 30},
		bound[int]{"evolution.force_after_days", e.ForceAfterDays, 1, 365},
		bound[int]{"evolution.max_scopes", e.MaxScopes, 1, 1000},
		bound[int]{"evolution.complex_tool_calls", e.ComplexToolCalls, 1, 1000},
		bound[int]{"evolution.cycle_calls", e.CycleCalls, 1, 10000},
		bound[int]{"evolution.cycle_tokens", e.CycleTokens, 1000, 100_000_000},
		bound[int]{"evolution.cycle_minutes", e.CycleMinutes, 1, 24 * 60},
		bound[int]{"evolution.reflection_calls", e.ReflectionCalls, 1, 50},
		bound[int]{"evolution.packet_tokens", e.PacketTokens, 1000, 1_000_000},
		bound[int]{"evolution.window_days", e.WindowDays, 1, 365},
		bound[int]{"evolution.max_skills", e.MaxSkills, 1, 10000},
		bound[int]{"evolution.index_tokens", e.IndexTokens, 100, 100_000},
	)...)
	p = append(p, outOfRange(
		bound[float64]{"evolution.threshold", e.Threshold, 0, 1},
		bound[float64]{"evolution.weights.correction", e.Weights.Correction, 0, 1},
		bound[float64]{"evolution.weights.skill_then_error", e.Weights.SkillThenError, 0, 1},
		bound[float64]{"evolution.weights.recovered", e.Weights.Recovered, 0, 1},
		bound[float64]{"evolution.weights.weakness", e.Weights.Weakness, 0, 1},
		bound[float64]{"evolution.weights.complexity", e.Weights.Complexity, 0, 1},
	)...)
	if e.Threshold == 0 {
		p = append(p, "evolution.threshold: 0 would reflect on every run; want more than 0 (0.7 by default)")
	}
	return p
}
