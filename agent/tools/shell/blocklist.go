package shell

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/parleybot/parley/internal/lazyre"
)

// Blocklist rule names, as they appear in BlockedError.Rule.
const (
	RuleWipe        = "wipe-filesystem"
	RuleFormat      = "format-filesystem"
	RuleRawDisk     = "raw-disk-write"
	RuleForkBomb    = "fork-bomb"
	RulePower       = "power-off"
	RulePermissions = "recursive-permissions-on-system"
	RuleProtected   = "protected-path"
	RuleEnviron     = "process-environment"
	RuleTooLong     = "too-long-to-review"
)

// maxCommandRunes bounds a command: the approver is shown all of it (over
// several messages where a platform's limit needs), and a command nobody
// can read in full cannot be approved in earnest.
const maxCommandRunes = 8000

// BlockedError is a command the blocklist refuses. It is checked before
// anything runs, and no approval overrides it.
type BlockedError struct {
	Rule   string // one of the Rule* constants
	Reason string // what matched
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("refused by the shell blocklist (rule %s: %s); approval cannot override this rule", e.Rule, e.Reason)
}

// blocklist is the tripwire described in the package comment: a pragmatic
// text match against the obvious spellings of a few catastrophic commands.
// It is not a sandbox and does not try to be one.
type blocklist struct {
	protected protectedPaths
}

// check returns a *BlockedError if the command trips a rule.
func (b *blocklist) check(command string) error {
	if n := utf8.RuneCountInString(command); n > maxCommandRunes {
		return &BlockedError{RuleTooLong, fmt.Sprintf("%d characters, more than the %d a person can be shown to approve; write a script to a file in smaller steps", n, maxCommandRunes)}
	}
	norm := normalize(command)
	if name, ok := forkBomb(norm); ok {
		return &BlockedError{RuleForkBomb, fmt.Sprintf("function %s runs two copies of itself", name)}
	}
	text := pathText(norm)
	if procEnviron().MatchString(text) && environWord().MatchString(text) {
		return &BlockedError{RuleEnviron, "reads a process environment under /proc"}
	}
	if ref, ok := b.protected.referenced(text); ok {
		return &BlockedError{RuleProtected, fmt.Sprintf("names %s, which belongs to Parley", ref)}
	}
	for _, m := range diskRedirect().FindAllStringSubmatch(norm, -1) {
		if rawDisk(m[1]) {
			return &BlockedError{RuleRawDisk, "redirects output to " + m[1]}
		}
	}
	for _, words := range segments(norm) {
		if err := checkWords(words); err != nil {
			return err
		}
	}
	return nil
}

var (
	procEnviron  = lazyre.MustCompile(`/proc\b`)
	environWord  = lazyre.MustCompile(`environ\b`)
	diskRedirect = lazyre.MustCompile(`>[>|&]?\s*(/dev/[^\s;&|()<>]+)`)
	rawDiskName  = lazyre.MustCompile(`^/dev/([shv]d[a-z]|xvd[a-z]|nvme[0-9]|mmcblk[0-9]|md[0-9]|dm-[0-9]|r?disk|loop[0-9]|sr[0-9]|mapper/|block/|root$)`)
)

// rawDisk reports whether p names a block device: writing to one destroys
// the filesystem on it.
func rawDisk(p string) bool {
	return rawDiskName().MatchString(path.Clean(p))
}

// checkWords applies the per-command rules to one simple command. Rules
// with distinctive arguments (rm -r /, dd of=/dev/sda, mkfs …) match the
// program name anywhere in the command, so `xargs rm -rf /` and
// `echo rm -rf / | sh` are caught; power-off commands take no telling
// arguments and match only where they would run, so `grep reboot log`
// passes.
//
// Each rule looks at the words after the first occurrence of its program:
// those are a superset of the words after any later occurrence, so the
// verdict is the same and the check stays linear in the command's length
// (the model can send a long heredoc; `rm rm rm …` must not take minutes).
func checkWords(words []string) error {
	type occurrence struct {
		name string
		at   int
	}
	var firsts []occurrence // in order, so the reported rule is deterministic
	seen := map[string]bool{}
	for i, w := range words {
		if strings.HasPrefix(w, "of=") && rawDisk(w[len("of="):]) {
			return &BlockedError{RuleRawDisk, "dd writes to " + w[len("of="):]}
		}
		name := commandName(w)
		switch {
		case (strings.HasPrefix(name, "mkfs") || name == "mke2fs") && i+1 < len(words):
			return &BlockedError{RuleFormat, name + " creates a filesystem"}
		case name == "rm", name == "chmod", name == "chown", name == "chgrp",
			name == "tee", name == "shred", name == "wipefs", name == "blkdiscard":
			if !seen[name] {
				seen[name] = true
				firsts = append(firsts, occurrence{name, i})
			}
		}
	}
	for _, o := range firsts {
		name, args := o.name, words[o.at+1:]
		switch name {
		case "rm":
			if reason, ok := rmWipes(args); ok {
				return &BlockedError{RuleWipe, reason}
			}
		case "chmod", "chown", "chgrp":
			if target, ok := recursiveOnSystem(args); ok {
				return &BlockedError{RulePermissions, fmt.Sprintf("%s -R on %s", name, target)}
			}
		default: // writers that can take a device operand
			for _, a := range args {
				if rawDisk(a) {
					return &BlockedError{RuleRawDisk, fmt.Sprintf("%s writes to %s", name, a)}
				}
			}
		}
	}
	for _, c := range commands(words) {
		if reason, ok := powerOff(commandName(c[0]), c[1:]); ok {
			return &BlockedError{RulePower, reason}
		}
	}
	return nil
}

// rmWipes reports rm invocations that remove the root, a home directory or
// a top-level system directory recursively, or that disable rm's own
// --preserve-root guard. -f is not required: rm -r / is no safer. Options
// count wherever they appear, even after `--`: that only errs towards
// refusing, and keeps the verdict monotone in the words seen (see
// checkWords).
func rmWipes(args []string) (string, bool) {
	recursive, target := false, ""
	for _, a := range args {
		switch {
		case a == "--":
		case strings.HasPrefix(a, "--"):
			// GNU accepts any unambiguous prefix of a long option.
			if longOption(a, "--no-preserve-root") {
				return "rm --no-preserve-root", true
			}
			recursive = recursive || longOption(a, "--recursive")
		case strings.HasPrefix(a, "-") && len(a) > 1:
			recursive = recursive || strings.ContainsAny(a[1:], "rR")
		case target == "" && systemTarget(a):
			target = a
		}
	}
	if recursive && target != "" {
		return "rm -r " + target, true
	}
	return "", false
}

// recursiveOnSystem is chmod/chown/chgrp -R on the root, a home directory
// or a system directory. Only -R counts: chmod -r is a mode.
func recursiveOnSystem(args []string) (string, bool) {
	recursive, target := false, ""
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--"):
			recursive = recursive || longOption(a, "--recursive")
		case strings.HasPrefix(a, "-") && len(a) > 1:
			recursive = recursive || strings.Contains(a[1:], "R")
		case target == "" && systemTarget(a):
			target = a
		}
	}
	return target, recursive && target != ""
}

func longOption(arg, option string) bool {
	return len(arg) >= 3 && strings.HasPrefix(option, arg)
}

// systemDirs are the top-level directories whose recursive removal leaves
// the host unusable. /tmp is deliberately absent.
var systemDirs = map[string]bool{
	"/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true,
	"/lib": true, "/lib32": true, "/lib64": true, "/opt": true, "/proc": true,
	"/root": true, "/run": true, "/sbin": true, "/srv": true, "/sys": true,
	"/usr": true, "/var": true,
}

// systemTarget reports whether a path argument is the root, a home
// directory (normalize turned $HOME into ~) or a top-level system
// directory, or the contents of one (/*, ~/*, /usr/*), including simple
// globs that match one (/u*).
func systemTarget(a string) bool {
	if strings.HasPrefix(a, "~") {
		_, rest, _ := strings.Cut(a[1:], "/")
		return stripContents(path.Clean("/"+rest)) == "/"
	}
	if !strings.HasPrefix(a, "/") {
		return false
	}
	c := stripContents(path.Clean(a))
	if c == "/" || systemDirs[c] {
		return true
	}
	for dir := range systemDirs {
		if ok, _ := path.Match(c, dir); ok {
			return true
		}
	}
	return false
}

// stripContents turns "the contents of d" (d/*, d/**) into d: removing
// everything in /usr wipes it as surely as removing /usr.
func stripContents(c string) string {
	for c != "/" {
		dir, file := path.Split(c)
		if strings.Trim(file, "*") != "" {
			break
		}
		c = path.Clean(dir)
	}
	return c
}

// powerOff reports commands that stop or restart the host.
func powerOff(name string, args []string) (string, bool) {
	switch name {
	case "shutdown", "reboot", "halt", "poweroff":
		return name + " stops the host", true
	case "init", "telinit":
		if len(args) > 0 && (args[0] == "0" || args[0] == "6") {
			return name + " " + args[0] + " stops the host", true
		}
	case "systemctl":
		for _, a := range args {
			switch a {
			case "poweroff", "reboot", "halt", "kexec":
				return "systemctl " + a + " stops the host", true
			}
		}
	}
	return "", false
}

// forkBomb finds a shell function that runs two copies of itself
// (`:(){ :|:& };:`, `bomb(){ bomb|bomb& }; bomb`, `function b { b | b & }`,
// `f(){ f & f & }`), whitespace notwithstanding. It is linear: one pass
// collects the defined names, one pass looks for `name|name` and
// `name&name` as whole words.
func forkBomb(norm string) (string, bool) {
	defined := definedFunctions(norm)
	if len(defined) == 0 {
		return "", false
	}
	compact := strings.Join(strings.Fields(norm), "")
	prevStart, prevEnd := -1, -1
	for i := 0; i < len(compact); {
		if isShellMeta(compact[i]) {
			i++
			continue
		}
		j := i
		for j < len(compact) && !isShellMeta(compact[j]) {
			j++
		}
		word := compact[i:j]
		if prevEnd == i-1 && prevStart >= 0 && (compact[prevEnd] == '|' || compact[prevEnd] == '&') &&
			compact[prevStart:prevEnd] == word && defined[word] {
			return word, true
		}
		prevStart, prevEnd = i, j
		i = j
	}
	return "", false
}

var functionKeyword = lazyre.MustCompile(`\bfunction\s+([^\s;&|(){}<>]+)`)

// definedFunctions collects the names declared as `name()` or
// `function name`.
func definedFunctions(norm string) map[string]bool {
	names := map[string]bool{}
	for _, m := range functionKeyword().FindAllStringSubmatch(norm, -1) {
		names[m[1]] = true
	}
	for i := 0; i < len(norm); i++ {
		if norm[i] != '(' {
			continue
		}
		k := i + 1
		for k < len(norm) && norm[k] == ' ' {
			k++
		}
		if k == len(norm) || norm[k] != ')' {
			continue
		}
		end := i
		for end > 0 && norm[end-1] == ' ' {
			end--
		}
		start := end
		for start > 0 && !isShellMeta(norm[start-1]) && norm[start-1] != ' ' {
			start--
		}
		if start < end {
			names[norm[start:end]] = true
		}
	}
	return names
}

func isShellMeta(c byte) bool {
	return strings.IndexByte(";&|(){}<>`\n", c) >= 0
}
