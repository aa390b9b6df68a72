package shell

import (
	"encoding/json"
	"regexp"
	"sync"
)

// Risky shapes an approver should look at twice. They are called out
// beside the command, not refused: each has ordinary uses, and the
// approver, who knows the task, decides. Matching runs over the command
// normalized as the blocklist sees it (quotes, escapes and spacing tricks
// folded), so `cu”rl` is still a download. Compiled on first use: the
// shell tool is off unless configured.
var riskShapes = sync.OnceValue(func() []riskShape {
	return []riskShape{
		{regexp.MustCompile(`\|\s*(sudo\s+)?(env\s+)?(\S*/)?(ba|da|z|k|c|tc|fi|a)?sh\b|\|\s*(sudo\s+)?(\S*/)?(python[0-9.]*|perl|ruby|node|php)\b(\s+-)?\s*($|[;&|)])`),
			"pipes text into a shell or an interpreter"},
		{regexp.MustCompile(`\b(curl|wget|fetch|aria2c|lwp-download|ftp|tftp|scp|sftp|rsync|nc|ncat|netcat|socat|telnet|ssh)\b`),
			"talks to the network (downloads or sends data)"},
		{regexp.MustCompile(`\bbase(32|64)\b[^|;&]*\s(-d|-D|--decode)\b|\bopenssl\s+(enc\s+)?-?base64\b[^|;&]*\s-d\b|\bxxd\b[^|;&]*\s-r\b`),
			"decodes hidden text (base64, hex)"},
		{regexp.MustCompile(`\brm\s+(-\S*[rR]\S*|--recursive)\b|\bfind\b[^|;&]*\s-delete\b|\bshred\b|\bgit\s+clean\s+-\S*[fdx]`),
			"deletes recursively"},
		{regexp.MustCompile(`(^|[^<>&0-9])>>?\s*(/|~|\$HOME|\.\./)|\btee\s+(-a\s+)?(/|~|\.\./)|\b(cp|mv|install|ln|rsync|dd)\b[^|;&]*\s(of=)?(/|~|\.\./)\S*\s*($|[;&|])|\bcd\s+(/|~|\.\.)`),
			"writes or moves outside the workspace"},
		{regexp.MustCompile(`\b(sudo|su|doas|chmod\s+[0-7]*[4-7][0-7]{3}|chown|setcap)\b`),
			"changes privileges or ownership"},
		{regexp.MustCompile(`\beval\b|\bexec\s+[^>]|\$\(\s*(curl|wget)|` + "`" + `\s*(curl|wget)`),
			"runs text built at run time"},
	}
})

// riskShape is one kind of risk and how it reads in a command.
type riskShape struct {
	re   *regexp.Regexp
	note string
}

// Risks lists what is risky about the call's command, for the approval
// message (agent.Risky).
func (t *tool) Risks(raw json.RawMessage) []string {
	var a Args
	if err := json.Unmarshal(raw, &a); err != nil {
		return []string{"its arguments are unreadable"}
	}
	return commandRisks(a.Command)
}

// commandRisks is Risks for one command line.
func commandRisks(command string) []string {
	norm := normalize(command)
	var out []string
	for _, s := range riskShapes() {
		if s.re.MatchString(norm) || s.re.MatchString(command) {
			out = append(out, s.note)
		}
	}
	return out
}
