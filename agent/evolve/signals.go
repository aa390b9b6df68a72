// Package evolve is how Parley learns from its own use: signals counted
// at the end of every run at no model cost, the score that says whether a
// run is worth reflecting on, and (as the loop grows) reflection, skills
// and the self-memo.
package evolve

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/internal/lazyre"
)

// Signals are what one run tells about itself, counted from its events.
type Signals struct {
	// ToolCalls is how many tools the run called.
	ToolCalls int
	// TransientErrors are failures the environment caused — rate limits,
	// timeouts, dropped connections, 5xx — the model's retries included,
	// as agent.Transient classifies them from their types. They never
	// count against the run.
	TransientErrors int
	// RealErrors are the other failures: a tool refused its arguments, a
	// command failed, a file was missing.
	RealErrors int
	// Recovered: after a real error the run still ended with an answer.
	Recovered bool
	// EndedInRealError: the run ended in a real error, not an answer.
	EndedInRealError bool
	// Stopped: the person stopped the run. A stopped run is not an
	// ineffective one.
	Stopped bool
	// Corrected: the person's next message in the conversation corrected
	// it (IsCorrection), set when that message arrives.
	Corrected bool
	// SkillsRead are the skills the run read (skill_read), in order.
	SkillsRead []string
	// Weakness: the run hit a weakness the scope's self-memo names
	// (HitsWeakness), set when the run is recorded (Recorder).
	Weakness bool
}

// Observer counts a run's signals from its event stream.
type Observer struct {
	s         Signals
	realError bool // a real error since the last success
	about     strings.Builder
}

// aboutCap bounds what an Observer keeps of the tools' names and errors;
// errorNoteCap, of each error.
const (
	aboutCap     = 4 << 10
	errorNoteCap = 512
)

// clipBytes is at most n bytes of text, cut on a rune boundary.
func clipBytes(text string, n int) string {
	if len(text) <= n {
		return text
	}
	return strings.ToValidUTF8(text[:n], "")
}

// Observe takes one event of the run.
func (o *Observer) Observe(ev agent.Event) {
	switch ev.Kind {
	case agent.EventToolEnd:
		o.s.ToolCalls++
		if ev.Tool != nil {
			o.note(ev.Tool.Name)
		}
		if ev.IsError {
			// The head of each error only: a failed command's whole
			// output would crowd every later tool out of aboutCap.
			o.note(clipBytes(ev.Result, errorNoteCap))
		}
		if ev.Tool != nil && ev.Tool.Name == "skill_read" && !ev.IsError {
			o.s.SkillsRead = append(o.s.SkillsRead, skillName(ev.Tool.Arguments))
		}
		switch {
		case !ev.IsError:
		case ev.Transient:
			// Classified by the runner from the tool's typed error; the
			// result's words (a "line 512", an "EOF" in a log) never
			// decide it.
			o.s.TransientErrors++
		default:
			o.s.RealErrors++
			o.realError = true
		}
	case agent.EventRetry:
		o.s.TransientErrors++
	}
}

// note keeps a line of what the run was about, within aboutCap.
func (o *Observer) note(text string) {
	if left := aboutCap - o.about.Len(); left > 0 {
		if len(text) > left {
			text = text[:left]
		}
		o.about.WriteString(text)
		o.about.WriteByte('\n')
	}
}

// About is what the run did, for matching against weaknesses: the names
// of the tools it called and the texts of their errors, capped.
func (o *Observer) About() string { return o.about.String() }

// End closes the count: err is how the run ended (nil: an answer), stopped
// whether the person stopped it.
func (o *Observer) End(err error, stopped bool) Signals {
	s := o.s
	s.Stopped = stopped
	switch {
	case stopped || err == nil && s.RealErrors == 0:
	case err == nil:
		s.Recovered = true
	case transientEnd(err):
		s.TransientErrors++
	default:
		s.EndedInRealError = true
	}
	return s
}

// transientEnd: the run ended on a failure of the environment (the
// provider rate-limited or unreachable after every retry, a timeout),
// read from the error's type and the provider's status, never its words.
func transientEnd(err error) bool { return agent.Transient(err) }

// corrections are how people tell Parley it got something wrong, by
// language. Short, unambiguous forms only: a false "correction" sends a
// good run to reflection, a missed one loses a lesson; both are cheap.
var corrections = lazyre.MustCompileAll(
	`(?i)^\s*(no|nope|wrong)\b[,.!]?`,
	`(?i)\b(that'?s|this is|it'?s|you'?re|you are) (not right|wrong|incorrect|not what i (asked|meant|wanted))\b`,
	`(?i)\b(that'?s not|not what i (asked|meant|wanted))\b`,
	`(?i)^\s*actually\b`,
	`(?i)\b(i said|i asked for|i meant|use .+ instead|instead of)\b`,
	`(?i)\b(you (got|did) it wrong|try again|should have been)\b`,
	`(?i)\b(falsch|stimmt nicht|das ist nicht)\b|\b(c'est faux|pas ça|ce n'est pas)\b|\b(incorrecto|no es así)\b`,
	`不对|不是这样|应该是|重新|错了|搞错|不正确|不是我要的`,
	`違う|ちがう|そうじゃな|間違|じゃなくて`,
	`틀렸|아니야|아니에요|그게 아니`,
)

// notCorrections start like a correction and are not one.
var notCorrections = lazyre.MustCompile(`(?i)^\s*no\s+(problem|worries|thanks|thank you|need|rush|hurry)\b`)

// IsCorrection reports whether text, the person's next message after a
// run, reads as correcting it.
func IsCorrection(text string) bool {
	text = strings.TrimSpace(text)
	if notCorrections().MatchString(text) {
		return false
	}
	for _, re := range corrections() {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// skillName reads skill_read's "name" argument.
func skillName(args []byte) string {
	var a struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(args, &a) // an unreadable call failed validation already
	return a.Name
}

// Run is one run's signals as kept: where, whose, when.
type Run struct {
	// Scope is where what is learnt from the run belongs (bot.Where.Home).
	Scope     string
	SessionID string
	Author    string // the person whose turn it was ("slack:U1")
	Key       string // the inbound event that started it
	At        time.Time
	Signals
	// About is what the run was about — the person's message, the tools
	// it called, their errors — for Recorder's weakness check; not kept.
	About string
}
